import Dispatch
import Foundation
import ManagedObjectCore
import Synchronization
import WorkshopSupport

/// Two callers asking at the same instant, round after round, on a free slot: what the
/// step-by-step programs cannot do, since they send one caller at a time. A mistake that needs
/// two callers inside the scheduler's bookkeeping at once (a start decided under one lock and
/// recorded under another, a count changed outside the lock) gets its chance here. Each caller
/// runs on a thread of its own; both leave a barrier for one start instant, and one of them
/// waits a little past it. Which of the two gets the slot first says which one the wait should
/// hold back next round: a staircase that gathers the rounds where the two reach the
/// scheduler's lock together, wherever that is on this machine. Which of the two asked first
/// is never certain, so only what holds in either order is judged: a write runs alone, and
/// each call returns its own block's result.
enum StormRun {
  /// Rounds in which both callers were at the start in time, and at most how many rounds in
  /// all: a round a loaded machine made late still runs, but is not counted. Rounds past the
  /// first 1,500 run only within a second of the start: the storm runs beside the step's other
  /// checks, which make some of its rounds late on 2 cores, and the whole step must stay within
  /// 3 s. A machine loaded three times over (load 6 on 2 cores) caught the mistake in 1 of 20
  /// runs so, 5 of 20 with 3 s of extra rounds, which made every Step 5 run, a right answer's
  /// too, 4-5 s there: the mutation gate and the wrong-answer gate run a race-dependent catch
  /// again instead.
  static let rounds = 1_500
  static let roundsAtMost = 4_500

  /// The first breach, with the events just before it; nil when every round kept the rule.
  static func run(_ subject: Subject, on container: PersistentContainer, seed: UInt64) async
    -> (breach: Breach, recent: [String])?
  {
    let scheduler = subject.make(container)
    let ledger = StormLedger()
    let line = StartLine()
    let returned: Void? = try? await withTimeout(.seconds(20), "two callers at once, in rounds") {
      await withTaskGroup(of: Void.self) { group in
        for caller in 0..<2 {
          group.addTask {
            let thread = DedicatedThread(name: "workshop.step5.caller")
            defer { thread.stop() }
            await withTaskExecutorPreference(thread) {
              var random = SplitMix64(seed: seed &+ UInt64(caller))
              for round in 0..<roundsAtMost {
                guard line.leave(as: caller), !ledger.broken else { return }
                let number = round * 2 + caller + 1
                let access: Access = random.next() % 3 == 0 ? .read : .write
                await call(number, access, on: scheduler, ledger, line)
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
    _ number: Int, _ access: Access, on scheduler: any Scheduler, _ ledger: StormLedger,
    _ line: StartLine
  ) async {
    let block: @Sendable (ManagedObjectContext) throws -> Int = { _ in
      line.started(number, access)
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

/// Lets the two callers leave together, round after round, at one start instant, one of them
/// a little later: by `lead`, a staircase moved after each round toward the distance at which
/// the two reach the scheduler together.
///
/// The last to arrive names the instant, 20 to 200 µs ahead: further after a round in which a
/// caller came to it late (a loaded machine took its core), so that both are there and spinning
/// when it comes. A late round still runs, but does not move the staircase. A caller waiting
/// for the other yields its core at each look for a moment, then blocks. Bounded, so that a
/// caller stuck in the scheduler ends the rounds instead of the run.
private final class StartLine: Sendable {
  private struct Rounds {
    var arrived = 0
    var start: UInt64 = 0
    /// Nanoseconds caller 0 waits past the start (negative: caller 1 waits).
    var lead = 0
    var step = 400
    /// The callers whose blocks started this round, in order, with their access.
    var started: [(caller: Int, access: Access)] = []
    var late = false
    var lastMove = 0
    /// How far ahead the start is named: long enough for a caller that blocked to wake.
    var ahead: UInt64 = 50_000
    /// Rounds so far, and those in which both callers were at the start in time.
    var all = 0
    var inTime = 0
  }

  private let rounds = Mutex(Rounds())
  private let generation = Atomic(0)
  private let condition = NSCondition()
  /// Rounds past ``StormRun/rounds`` are run only within this time from the first.
  private let extraRoundsUntil = ContinuousClock.now + .seconds(1)

  /// Leaves for the next round with the other caller; false when enough rounds were in time,
  /// or when the other did not come within a second (it is stuck in the scheduler).
  func leave(as caller: Int) -> Bool {
    let seen = generation.load(ordering: .acquiring)
    let last = rounds.withLock { rounds -> Bool in
      rounds.arrived += 1
      guard rounds.arrived == 2 else { return false }
      rounds.arrived = 0
      if rounds.all > 0, !rounds.late { rounds.inTime += 1 }
      rounds.all += 1
      Self.move(&rounds)
      let enough =
        rounds.inTime >= StormRun.rounds
        || (rounds.all > StormRun.rounds && ContinuousClock.now > extraRoundsUntil)
      if enough {
        rounds.start = 0
      } else {
        rounds.start = DispatchTime.now().uptimeNanoseconds + rounds.ahead
      }
      return true
    }
    if last {
      condition.lock()
      generation.wrappingAdd(1, ordering: .releasing)
      condition.broadcast()
      condition.unlock()
    } else if !waitForTheOther(past: seen) {
      return false
    }
    let (start, lead) = rounds.withLock { ($0.start, $0.lead) }
    guard start > 0 else { return false }
    let mine = caller == 0 ? max(lead, 0) : max(-lead, 0)
    let until = start + UInt64(mine)
    if DispatchTime.now().uptimeNanoseconds > start { rounds.withLock { $0.late = true } }
    while DispatchTime.now().uptimeNanoseconds < until {}
    return true
  }

  /// Notes a block that starts.
  func started(_ number: Int, _ access: Access) {
    rounds.withLock { $0.started.append(((number - 1) % 2, access)) }
  }

  /// Moves the staircase after a round whose order is known: toward holding back the caller
  /// that got there first; the step shrinks at each turn, to a floor that keeps the rounds
  /// spread around the meeting point.
  private static func move(_ rounds: inout Rounds) {
    defer { (rounds.started, rounds.late) = ([], false) }
    rounds.ahead =
      rounds.late ? min(rounds.ahead * 2, 200_000) : max(rounds.ahead - rounds.ahead / 16, 20_000)
    // Two reads start together whoever asks first: their order says nothing.
    guard let first = rounds.started.first, !rounds.late,
      rounds.started.contains(where: { $0.access == .write })
    else { return }
    let direction = first.caller == 0 ? 1 : -1
    if rounds.lastMove == -direction { rounds.step = max(rounds.step * 3 / 4, 10) }
    rounds.lastMove = direction
    rounds.lead += direction * rounds.step
  }

  /// Spins for a moment, yielding the core at each look to any thread that wants it, so that
  /// the other caller's work runs beside the spin and a spinner sees the start at once; then
  /// blocks, so that a slow round (a loaded machine, the sanitizers) burns no core that the
  /// rest of the run needs. A round a blocked caller wakes late to is not counted.
  private func waitForTheOther(past seen: Int) -> Bool {
    let spinUntil = ContinuousClock.now + .microseconds(200)
    while generation.load(ordering: .acquiring) == seen, ContinuousClock.now < spinUntil {
      sched_yield()
    }
    let deadline = Date(timeIntervalSinceNow: timeScale)
    condition.lock()
    defer { condition.unlock() }
    while generation.load(ordering: .acquiring) == seen {
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
