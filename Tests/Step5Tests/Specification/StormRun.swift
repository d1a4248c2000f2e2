import Dispatch
import Foundation
import ManagedObjectCore
import Synchronization
import WorkshopSupport

/// Two callers asking at the same instant, round after round, on a free slot: what the
/// step-by-step programs cannot do, since they send one caller at a time. A mistake that needs
/// two callers inside the scheduler's bookkeeping at once (a start decided under one lock and
/// recorded under another, a count changed outside the lock) gets its chance here. Each caller
/// runs on a thread of its own, and both leave a spinning barrier together. Which of the two
/// asked first is unknown, so only what holds in either order is judged: a write runs alone,
/// and each call returns its own block's result.
enum StormRun {
  static let rounds = 1_500

  /// The first breach, with the events just before it; nil when every round kept the rule.
  static func run(_ subject: Subject, on container: PersistentContainer, seed: UInt64) async
    -> (breach: Breach, recent: [String])?
  {
    let scheduler = subject.make(container)
    let ledger = StormLedger()
    let barrier = SpinBarrier(parties: 2)
    let returned: Void? = try? await withTimeout(.seconds(20), "two callers at once, in rounds") {
      await withTaskGroup(of: Void.self) { group in
        for caller in 0..<2 {
          group.addTask {
            let thread = DedicatedThread(name: "workshop.step5.caller")
            defer { thread.stop() }
            await withTaskExecutorPreference(thread) {
              var random = SplitMix64(seed: seed &+ UInt64(caller))
              for round in 0..<rounds {
                guard barrier.arrive(), !ledger.broken else { return }
                // One caller a little behind the other, by a different amount each round: the
                // two pass the scheduler's look at its state at every distance from each other.
                if caller == 0 { spin(Int(random.next() % 300)) }
                let number = round * 2 + caller + 1
                let access: Access = random.next() % 3 == 0 ? .read : .write
                await call(number, access, on: scheduler, ledger)
              }
            }
          }
        }
      }
    }
    if let breach = ledger.breach { return (breach, ledger.recent) }
    if returned == nil {
      let observed = "\(rounds) rounds of two callers had not all returned within 20 s"
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
      let until = ContinuousClock.now + .microseconds(2 + number % 8)
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

/// Lets `parties` threads leave together. Each spins a little, so that two that arrive close
/// together leave within nanoseconds of each other, then blocks: a thread that spins longer
/// keeps the other from the core it needs to arrive at all. Bounded, so that a caller stuck in
/// the scheduler ends the rounds instead of the run.
private final class SpinBarrier: Sendable {
  private let parties: Int
  private let arrivals = Atomic(0)
  private let generation = Atomic(0)
  private let condition = NSCondition()

  init(parties: Int) {
    self.parties = parties
  }

  /// False when the others did not arrive within a second.
  func arrive() -> Bool {
    let round = generation.load(ordering: .acquiring)
    if arrivals.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == parties {
      arrivals.store(0, ordering: .releasing)
      condition.lock()
      generation.wrappingAdd(1, ordering: .releasing)
      condition.broadcast()
      condition.unlock()
      return true
    }
    let spinUntil = ContinuousClock.now + .microseconds(30)
    while generation.load(ordering: .acquiring) == round {
      if ContinuousClock.now > spinUntil { break }
    }
    let deadline = Date(timeIntervalSinceNow: timeScale)
    condition.lock()
    defer { condition.unlock() }
    while generation.load(ordering: .acquiring) == round {
      if !condition.wait(until: deadline) { return false }
    }
    return true
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
