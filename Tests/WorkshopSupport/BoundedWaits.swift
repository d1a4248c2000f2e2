import Dispatch
import Foundation
import Synchronization
import WorkshopEnvironment

// Tools for forcing interleavings without sleeps and without ever hanging the test process (the
// one sleep, in `eventually`, is a bounded wait's poll interval, and provokes nothing).
// Every wait has a deadline; a wait that times out reports it instead of blocking forever.

/// The time a bounded wait gives up after, when a test does not say otherwise. Generous, because
/// CI machines have two cores and may be busy; a correct run never comes close to it.
public let defaultWaitTimeout: Duration = .seconds(10)

/// How many times longer than usual a correct run may take: `WORKSHOP_TIME_SCALE`, 1 by default.
/// CI's thread-sanitizer run, several times slower, sets 4. It stretches the deadlines that only
/// keep a wrong implementation from hanging the run (`withTimeout`, `finishes`, `eventually` and
/// the watchdog), never the short waits whose expiry is itself the observation.
public let timeScale: Double = {
  let value = WorkshopEnvironment.value(WorkshopEnvironment.timeScale).flatMap(Double.init)
  return max(value ?? 1, 1)
}()

/// How long a block that a check holds waits to be let go before it ends by itself: a guard
/// against a hang only, longer than any bounded wait of a check can last (20 s of the pool's
/// time, at most four times that in looks, stretched by the time scale), so that it never ends
/// while the check still counts on it running. The thread sanitizer's gate saw a held write end
/// by its 15 s bound while the check waited on, and judged the solution for a write that
/// "started while the first still ran".
public var holdGuard: Duration { countsPoolTime ? .seconds(90) : .seconds(15) * timeScale }

/// Whether bounded waits count the cooperative pool's time (``PoolRounds``), not the clock's:
/// everywhere but under the sanitizers (a time scale above 1), which run only the solution, many
/// times slower. Counting the pool's time there stretched the thread sanitizer's run from 30 s
/// to 5-8 minutes, past the watchdog (seen twice in three runs), so there the waits count as
/// they did before, which that gate passed with.
public var countsPoolTime: Bool { timeScale == 1 }

/// Thrown when an awaited operation did not finish in time, or (`stalled`) when the state it
/// waits on showed that it never can.
public struct TimeoutError: Error, CustomStringConvertible {
  public let what: String
  public let timeout: Duration
  /// What the code's own state showed, when the wait ended before its bound because nothing
  /// more could happen (``withTimeout(_:_:stalled:_:)``); nil when the bound ran out.
  public let stalled: String?

  public init(what: String, timeout: Duration, stalled: String? = nil) {
    self.what = what
    self.timeout = timeout
    self.stalled = stalled
  }

  public var description: String {
    if let stalled { return "\(what) could not finish: \(stalled)" }
    return "\(what) did not finish within \(timeout)"
  }
}

/// Awaits `operation`, or throws ``TimeoutError`` after `timeout` without waiting for it to end.
///
/// Unlike a task group, this never waits for a stuck child: a deadlocked operation is abandoned
/// (it leaks), and the test fails with a message instead of hanging the run. Cancelling the
/// caller cancels the operation, so a bounded call can still be the one a check cancels.
///
/// `stalled`, asked at each look of the timer (every 50 ms), says what the code's own state
/// shows when the operation can no longer finish (a caller queued for a slot that nobody holds
/// any more): the wait then ends at once with that observation, instead of waiting out the
/// bound, which stays only for what no state shows (a machine that is merely slow). It must
/// answer only from a state that cannot change by itself.
public func withTimeout<Value: Sendable>(
  _ timeout: Duration = defaultWaitTimeout,
  _ what: String,
  stalled: (@Sendable () -> String?)? = nil,
  _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  let timeout = timeout * timeScale
  let running = CancellableTask()
  return try await withTaskCancellationHandler {
    try await withCheckedThrowingContinuation { continuation in
      let once = ResumeOnce(continuation)
      running.start {
        do { once.resume(with: .success(try await operation())) } catch {
          once.resume(with: .failure(error))
        }
      }
      AwakeTimer.after(timeout, unless: { once.isDone }, stalled: stalled) { observed in
        once.resume(
          with: .failure(TimeoutError(what: what, timeout: timeout, stalled: observed)))
      }
    }
  } onCancel: {
    running.cancel()
  }
}

/// Fires once `timeout` of the time in which the awaited work could run has passed. It looks
/// every 50 ms and counts the time since its last look, at most 100 ms, only when a round of
/// the cooperative pool (``PoolRounds``) ran in between: a look that comes seconds late, because
/// the machine was kept busy elsewhere, spends only 100 ms of the bound, and while the pool is
/// full or held (seen: 9 to 12 s at the start of every verify run, hundreds of checks and the
/// probes' compilers at once) the awaited caller waits for a thread and nothing counts. On an
/// idle machine it fires at `timeout`, as a plain timer would. An answer that holds the pool
/// itself (a semaphore waited on there) still fails: after `timeout` × ``poolHeldFactor`` of
/// looks, counted or not.
/// At each look it also asks `stalled`, and fires at once, with its answer, when it has one.
private enum AwakeTimer {
  static let poolHeldFactor = 4.0

  /// Stops looking as soon as `done` says the wait is over. `fire` gets what `stalled` said,
  /// or nil when the time ran out.
  static func after(
    _ timeout: Duration, unless done: @escaping @Sendable () -> Bool,
    stalled: (@Sendable () -> String?)?, _ fire: @escaping @Sendable (String?) -> Void
  ) {
    let rounds = PoolRounds()
    let clock = Clock(
      left: timeout, awakeLeft: timeout * poolHeldFactor, last: .now, round: rounds.tick())
    look(clock, rounds, done, stalled, fire)
  }

  /// What is left of the bound, counted and looked, and where the last look was.
  private struct Clock: Sendable {
    var left: Duration
    var awakeLeft: Duration
    var last: ContinuousClock.Instant
    var round: Int
  }

  private static func look(
    _ clock: Clock, _ rounds: PoolRounds, _ done: @escaping @Sendable () -> Bool,
    _ stalled: (@Sendable () -> String?)?, _ fire: @escaping @Sendable (String?) -> Void
  ) {
    let step = min(clock.left, .milliseconds(50))
    DispatchQueue.global().asyncAfter(deadline: .now() + step.seconds) {
      guard !done() else { return }
      if let observed = stalled?() {
        fire(observed)
        return
      }
      var clock = clock
      let now = ContinuousClock.now
      let spent = min(now - clock.last, .milliseconds(100))
      let round = rounds.tick()
      if round > clock.round || !countsPoolTime { clock.left -= spent }
      clock.awakeLeft -= spent
      clock.last = now
      clock.round = round
      if clock.left <= .zero || clock.awakeLeft <= .zero {
        fire(nil)
      } else {
        look(clock, rounds, done, stalled, fire)
      }
    }
  }
}

/// An unstructured task that can be cancelled before it is started, and then starts cancelled.
private final class CancellableTask: Sendable {
  private let state = Mutex<(task: Task<Void, Never>?, isCancelled: Bool)>((nil, false))

  func start(_ body: @escaping @Sendable () async -> Void) {
    // The body waits until the task is cancelled or known not to be: a task cannot be made
    // cancelled, and one that ran its body at once could look at `Task.isCancelled` before the
    // `cancel()` below (seen: a caller cancelled before it asked ran its block, 1 run in 100).
    let (decided, decide) = AsyncStream<Never>.makeStream()
    let task = Task {
      for await _ in decided {}
      await body()
    }
    let cancelled = state.withLock { state in
      state.task = task
      return state.isCancelled
    }
    if cancelled { task.cancel() }
    decide.finish()
  }

  func cancel() {
    let task = state.withLock { state in
      state.isCancelled = true
      return state.task
    }
    task?.cancel()
  }
}

/// Resumes a continuation for the first result only.
private final class ResumeOnce<Value: Sendable>: Sendable {
  private let continuation: Mutex<CheckedContinuation<Value, any Error>?>

  init(_ continuation: CheckedContinuation<Value, any Error>) {
    self.continuation = Mutex(continuation)
  }

  /// True once a result was given.
  var isDone: Bool { continuation.withLock { $0 == nil } }

  func resume(with result: Result<Value, any Error>) {
    let pending = continuation.withLock { stored in
      defer { stored = nil }
      return stored
    }
    pending?.resume(with: result)
  }
}

extension Duration {
  /// The duration in seconds, as Dispatch and Foundation want it.
  public var seconds: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}

/// Runs `operation(0)` … `operation(count - 1)` as concurrent child tasks and waits for all of
/// them, or throws ``TimeoutError`` after `timeout`. The first error thrown by an operation is
/// rethrown.
public func concurrently(
  _ count: Int, _ what: String, timeout: Duration = .seconds(30),
  _ operation: @escaping @Sendable (Int) async throws -> Void
) async throws {
  try await withTimeout(timeout, "\(count) concurrent \(what)") {
    try await withThrowingTaskGroup(of: Void.self) { group in
      for index in 0..<count {
        group.addTask { try await operation(index) }
      }
      try await group.waitForAll()
    }
  }
}

/// Runs blocking work (`performAndWait`, a semaphore) on a Dispatch queue instead of the
/// cooperative pool, which has only as many threads as the machine has cores.
///
/// By default on a serial queue of its own. Not on `DispatchQueue.global()`, nor on a concurrent
/// queue (which targets it): on Linux that is the very pool Swift's tasks run on, two threads
/// on a 2-core machine, and two waits parked there stall every task of the run for as long as
/// they wait. A serial queue with a label gets a thread of its own while others block.
public func offThePool<Value: Sendable>(
  on queue: DispatchQueue = DispatchQueue(label: "workshop.blocking-wait"),
  _ work: @escaping @Sendable () throws -> Value
) async throws -> Value {
  try await withCheckedThrowingContinuation { continuation in
    queue.async { continuation.resume(with: Result { try work() }) }
  }
}

/// Waits until `condition` holds, or `timeout` passes: for state that sends no event (how many
/// callers wait in a queue). The bound only keeps a wrong implementation from hanging the run.
///
/// It waits for the state, not for time to pass, and provokes nothing: the first 200 looks follow
/// each other at once, so a right answer is seen as soon as it holds. After that, looks are a
/// millisecond apart, the poll interval of a bounded wait: a wrong answer that never gets there
/// (the untouched starter, in verify mode) waits out its bound without spinning a thread of the
/// cooperative pool. Spinning, the verify suite took 14–15 s instead of 11 s on 2 cores, and the
/// checker's cross-context stress round 5–6 s of its 10 s bound instead of 1 s (measured).
///
/// Each look comes back through the cooperative pool, so it counts at most 100 ms since the
/// last one: a look the pool kept waiting (its queue full at the start of the verify run, 9 to
/// 12 s) spends only that much of the bound, as in ``withTimeout(_:_:stalled:_:)``.
public func eventually(
  within timeout: Duration = defaultWaitTimeout, _ condition: @Sendable () -> Bool
) async -> Bool {
  var left = timeout * timeScale
  var last = ContinuousClock.now
  var looks = 0
  while left > .zero {
    if condition() { return true }
    looks += 1
    if looks < 200 {
      await Task.yield()
    } else {
      // A bounded wait's poll interval, not a race provoked: the loop waits for `condition`.
      try? await Task.sleep(for: .milliseconds(1))
    }
    let now = ContinuousClock.now
    left -= countsPoolTime ? min(now - last, .milliseconds(100)) : now - last
    last = now
  }
  return condition()
}

/// True when `operation` finishes within `timeout`, false when it does not: for checks whose
/// lesson is "this must not hang" (a deadlock), where a timeout is the observation, not an error.
/// `stalled` ends the wait early, as in ``withTimeout(_:_:stalled:_:)``.
public func finishes(
  within timeout: Duration, _ what: String, stalled: (@Sendable () -> String?)? = nil,
  _ operation: @escaping @Sendable () async throws -> Void
) async throws -> Bool {
  do {
    try await withTimeout(timeout, what, stalled: stalled, operation)
    return true
  } catch is TimeoutError {
    return false
  }
}
