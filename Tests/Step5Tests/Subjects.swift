import Foundation
import ManagedObjectCore
import Step5
import Step5Solution
import Synchronization
import Testing
import WorkshopSupport

/// What the checks use of a scheduler; yours and the solution share this API.
protocol Scheduler: Sendable {
  var waitingCount: Int { get }
  func executeRead<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result
  func executeWrite<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result
  func executeWrite<Result: Sendable>(
    waitingAtMost limit: Duration,
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result
  /// What shows that a caller can never get its slot, or nil (``WatchedScheduler``).
  func stalled() -> String?
}

extension Scheduler {
  /// A bare scheduler says nothing: only a ``WatchedScheduler`` follows its calls.
  func stalled() -> String? { nil }

  /// Whether ``stalled()`` has something to say: a look, for a bounded wait's poll.
  var isStalled: Bool { stalled() != nil }

  /// A read through the scheduler, bounded: a caller that never gets its slot (a slot never
  /// released, a waiter never resumed) throws ``TimeoutError``, which the checks turn into the
  /// step's lesson, instead of hanging the run: at once when the scheduler is seen stalled,
  /// after 20 s otherwise.
  func read<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    try await withTimeout(.seconds(20), "a read through the scheduler", stalled: stalled) {
      try await executeRead(block)
    }
  }

  /// A write through the scheduler, bounded like ``read(_:)``.
  func write<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    try await withTimeout(.seconds(20), "a write through the scheduler", stalled: stalled) {
      try await executeWrite(block)
    }
  }

  /// A write that waits at most `limit` for its turn, bounded like ``read(_:)``.
  func write<Result: Sendable>(
    waitingAtMost limit: Duration,
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    try await withTimeout(
      .seconds(20), "a write that waits at most \(limit)", stalled: stalled
    ) {
      try await executeWrite(waitingAtMost: limit, block)
    }
  }
}

extension Step5.ReadWriteScheduler: Scheduler {}
extension Step5Solution.ReadWriteScheduler: Scheduler {}

/// What the checks use of one side; its side and module are on ``ExamSubject``.
struct Step5API: Sendable {
  let make: @Sendable (PersistentContainer) -> any Scheduler
  /// Whether `error` is this side's `SchedulerError.reentrantCall`.
  let isReentrantCall: @Sendable (any Error) -> Bool
  /// Whether `error` is this side's `SchedulerError.timedOut`.
  let isTimedOut: @Sendable (any Error) -> Bool
}

/// One side under test.
typealias Subject = ExamSubject<Step5API>

extension Step5API: ExamAPI {
  static var subjects: [Subject] {
    Subject.sides(
      "Step5",
      yours: Step5API(
        make: { Step5.ReadWriteScheduler(container: $0) },
        isReentrantCall: { ($0 as? Step5.SchedulerError) == .reentrantCall },
        isTimedOut: { ($0 as? Step5.SchedulerError) == .timedOut }),
      solution: Step5API(
        make: { Step5Solution.ReadWriteScheduler(container: $0) },
        isReentrantCall: { ($0 as? Step5Solution.SchedulerError) == .reentrantCall },
        isTimedOut: { ($0 as? Step5Solution.SchedulerError) == .timedOut }))
  }
}

/// The checks' own entity: the scheduler does not care what it schedules.
final class Score: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var value: Int = 0
}

func score(named name: String, in context: ManagedObjectContext) throws -> Score {
  let request = FetchRequest<Score>(predicate: #Predicate { $0.name == name })
  guard let score = try context.fetch(request).first else {
    throw PersistenceError.invalidFetch("no score named \(name)")
  }
  return score
}

/// Adds 10 to a score: read, (optionally do something in between), write.
func addTen(
  to name: String, between: (@Sendable () -> Void)? = nil
) -> @Sendable (ManagedObjectContext) throws -> Void {
  { context in
    let score = try score(named: name, in: context)
    let read = score.value
    between?()
    score.value = read + 10
    try context.save()
  }
}

/// A call sent to the scheduler whose block says when it starts, then stays inside until it is
/// let go: what the checks queue other callers behind, or watch being admitted.
final class HeldCall: Sendable {
  let started: Gate
  private let finish: Gate
  private let call: Task<Void, any Error>
  private let scheduler: any Scheduler

  /// Sends a read, or a write, without waiting for it to start.
  init(_ scheduler: any Scheduler, reading: Bool = false, log: Log? = nil, as name: String = "") {
    let (started, finish) = (Gate(), Gate())
    (self.started, self.finish, self.scheduler) = (started, finish, scheduler)
    let block: @Sendable (ManagedObjectContext) throws -> Void = { _ in
      log?.append(name)
      started.open()
      _ = finish.wait(timeout: holdGuard)
    }
    // Off the cooperative pool: a scheduler runs a block on its caller's thread, and a held
    // block there holds one of the pool's two threads for as long as the check holds it. Two of
    // them (or the untouched starter's, in verify mode) stopped every check beside them, whose
    // bounded waits ran out (CI red twice in new-step's verify). Before ``holdGuard``, the same
    // held blocks on the pool under the thread sanitizer ended by their 15 s bound while the
    // check still counted on them; with the longer guard they stalled that run for 5 minutes.
    // Under the sanitizers on the pool, as that gate passed with (``countsPoolTime``).
    call = Task(executorPreference: countsPoolTime ? OffThePoolExecutor.shared : nil) {
      if reading { try await scheduler.read(block) } else { try await scheduler.write(block) }
    }
  }

  /// Lets the block end without waiting: for an early exit.
  func letGo() {
    finish.open()
  }

  /// Lets the block end, and waits until the call has returned (and so released its slot).
  func release() async throws {
    finish.open()
    try await call.value
  }

  /// Cancels the caller's task.
  func cancel() {
    call.cancel()
  }

  /// How the call ended, waited for at most 10 s, or until the scheduler is seen stalled.
  func outcome() async throws -> Result<Void, any Error> {
    try await withTimeout(.seconds(10), "a call to the scheduler", stalled: scheduler.stalled) {
      await self.call.result
    }
  }
}

/// A write that holds the scheduler's slot until it is released: what the cancellation
/// scenarios queue behind.
final class SlotHolder: Sendable {
  private let held: HeldCall

  private init(_ held: HeldCall) {
    self.held = held
  }

  /// Starts a write (or a read) and returns once its block runs, holding the slot. Throws the
  /// check's failure when the scheduler is seen to keep it waiting for good, or it has not
  /// started within the bound.
  static func take(_ scheduler: any Scheduler, reading: Bool = false) async throws -> SlotHolder {
    let held = HeldCall(scheduler, reading: reading)
    _ = await eventually(within: defaultWaitTimeout) {
      held.started.isOpen || scheduler.isStalled
    }
    // A check built on a block that holds the slot says nothing once that block never started:
    // it fails here, on what it saw, instead of waiting out every bound after it.
    let stall = scheduler.stalled()
    if !held.started.isOpen {
      held.letGo()
      held.cancel()
    }
    try require(
      held.started.isOpen,
      observed: "a \(reading ? "read" : "write") that the check needs running never started its "
        + "block: " + (stall ?? "not within \(defaultWaitTimeout)"),
      lesson: Step5Tests.neverStarted)
    return SlotHolder(held)
  }

  /// Lets the block end, and waits until it has released the slot.
  func release() async throws {
    try await held.release()
  }

  /// Lets the block end without waiting: for an early exit.
  func letGo() {
    held.letGo()
  }

  /// Sends `count` writes that wait behind the holder, cancels them once all are queued (or
  /// one of them ran, which the untouched starter does at once), and returns what the queue
  /// showed and how each ended.
  /// `behind` callers already queued ahead of them (whose blocks open `started`) are counted.
  func cancelWaitingWrites(
    _ count: Int, on scheduler: any Scheduler, behind ahead: Int = 0, noneOf started: [Gate] = []
  ) async throws -> (queued: Queueing, outcomes: [Result<String, any Error>]) {
    let ran = Gate()
    let waiters = (0..<count).map { _ in
      Task {
        try await scheduler.write { _ in
          ran.open()
          return "ran"
        }
      }
    }
    let queued = await scheduler.queueing(ahead + count, noneOf: [ran] + started)
    for waiter in waiters { waiter.cancel() }
    var outcomes: [Result<String, any Error>] = []
    for waiter in waiters {
      outcomes.append(
        try await withTimeout(.seconds(10), "a cancelled caller", stalled: scheduler.stalled) {
          await waiter.result
        })
    }
    return (queued, outcomes)
  }
}

/// Counts who runs at once; remembers whether a write ever had company.
final class Occupancy: Sendable {
  private let state = Mutex((readers: 0, writers: 0, overlaps: [String]()))

  func enter(_ write: Bool) {
    state.withLock { state in
      if write { state.writers += 1 } else { state.readers += 1 }
      if state.writers > 1 || (state.writers == 1 && state.readers > 0) {
        state.overlaps.append("\(state.writers) write(s) with \(state.readers) read(s)")
      }
    }
  }

  func leave(_ write: Bool) {
    state.withLock { state in
      if write { state.writers -= 1 } else { state.readers -= 1 }
    }
  }

  var overlaps: [String] { state.withLock { $0.overlaps } }
}

/// A list that several blocks append to.
final class Log: Sendable {
  private let entries = Mutex([String]())

  func append(_ entry: String) { entries.withLock { $0.append(entry) } }

  var all: [String] { entries.withLock { $0 } }
}
