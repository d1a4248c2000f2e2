import ManagedObjectCore
import Synchronization
import WorkshopSupport

/// Many callers at once, nobody waiting for anybody: what the step-by-step programs cannot do,
/// since they ask one caller at a time. Here a mistake that needs two callers inside the
/// scheduler's bookkeeping at the same instant (a start decided under one lock and recorded
/// under another, a count changed outside the lock) gets its chance. The order of arrivals is
/// unknown, so only what holds in every order is judged: a write runs alone, every call returns
/// its own block's result, and every call returns.
enum StormRun {
  /// Callers, and calls each: about 4,000 calls, a fraction of a second.
  static let callers = 8
  static let callsEach = 500

  /// The first breach of the storm, with the events just before it; nil when it kept the rule.
  static func run(_ subject: Subject, on container: PersistentContainer, seed: UInt64) async
    -> (breach: Breach, recent: [String])?
  {
    let scheduler = subject.make(container)
    let ledger = StormLedger()
    let returned: Void? = try? await withTimeout(.seconds(20), "a storm of calls") {
      await withTaskGroup(of: Void.self) { group in
        for caller in 0..<callers {
          group.addTask {
            var random = SplitMix64(seed: seed &+ UInt64(caller))
            for index in 0..<callsEach where !ledger.broken {
              let number = caller * callsEach + index + 1
              let access: Access = random.next() % 3 == 0 ? .write : .read
              await call(number, access, on: scheduler, ledger)
            }
          }
        }
      }
    }
    if let breach = ledger.breach { return (breach, ledger.recent) }
    if returned == nil {
      let observed = "\(callers) callers of \(callsEach) calls each had not all returned in 20 s"
      return (Breach(at: nil, rule: .progress, observed: observed), ledger.recent)
    }
    return nil
  }

  private static func call(
    _ number: Int, _ access: Access, on scheduler: any Scheduler, _ ledger: StormLedger
  ) async {
    let block: @Sendable (ManagedObjectContext) throws -> Int = { _ in
      ledger.enter(number, access)
      // Inside for a few microseconds, so that a block let in beside it is seen.
      let until = ContinuousClock.now + .microseconds(number % 20)
      while ContinuousClock.now < until {}
      ledger.leave(number, access)
      return number
    }
    let result =
      try? await access == .write ? scheduler.executeWrite(block) : scheduler.executeRead(block)
    if result != number {
      let got = result.map { "C\($0)'s result" } ?? "an error"
      ledger.note(
        "C\(number) returns \(got)",
        Breach(at: nil, rule: .outcome, observed: "C\(number) returned \(got), not its own"))
    }
  }
}

/// Who is inside, what happened last, and the first breach.
private final class StormLedger: Sendable {
  private struct State {
    var readers = 0
    var writer: Int?
    var recent: [String] = []
    var breach: Breach?
  }

  private let state = Mutex(State())

  var broken: Bool { state.withLock { $0.breach != nil } }
  var breach: Breach? { state.withLock { $0.breach } }
  var recent: [String] { state.withLock { $0.recent } }

  func enter(_ number: Int, _ access: Access) {
    state.withLock { state in
      let company =
        if let writer = state.writer {
          "the write C\(writer) ran"
        } else if access == .write, state.readers > 0 {
          "\(state.readers) read(s) ran"
        } else {
          nil as String?
        }
      if access == .write { state.writer = number } else { state.readers += 1 }
      Self.note(&state, "C\(number) (a \(access.rawValue)) starts")
      if let company, state.breach == nil {
        let observed = "C\(number) (a \(access.rawValue)) started while \(company)"
        state.breach = Breach(at: nil, rule: .alone, observed: observed)
      }
    }
  }

  func leave(_ number: Int, _ access: Access) {
    state.withLock { state in
      if access == .write { state.writer = nil } else { state.readers -= 1 }
      Self.note(&state, "C\(number) ends")
    }
  }

  func note(_ line: String, _ breach: Breach) {
    state.withLock { state in
      Self.note(&state, line)
      if state.breach == nil { state.breach = breach }
    }
  }

  private static func note(_ state: inout State, _ line: String) {
    state.recent.append(line)
    if state.recent.count > 10 { state.recent.removeFirst() }
  }
}
