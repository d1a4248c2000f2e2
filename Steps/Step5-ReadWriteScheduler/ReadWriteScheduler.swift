import ManagedObjectCore

/// Thrown when a block calls back into the scheduler that runs it.
public enum SchedulerError: Error, Equatable {
  /// A block called back into the scheduler that runs it.
  case reentrantCall
  /// A caller waited longer than its limit for its turn (`executeWrite(waitingAtMost:_:)`).
  case timedOut
}

/// Runs blocks of persistence work, each with a fresh context: reads side by side, writes alone.
/// It is the 2024 talk's idea, as databases do it: many readers or one writer (2024 talk,
/// slides 74 and 76).
///
/// Blocks are `@Sendable` and return only Sendable values: they run on a context's queue, so they
/// capture no actor state, and a managed object never leaves its block.
nonisolated public final class ReadWriteScheduler: Sendable {
  private let container: PersistentContainer

  public init(container: PersistentContainer) {
    self.container = container
  }

  /// How many calls wait for their turn.
  public var waitingCount: Int {
    // TODO: report the callers waiting in the queue.
    0
  }

  /// Runs `block` alongside other reads, never alongside a write. The context is read-only.
  public func executeRead<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    // TODO: wait until no write runs or waits ahead of this read, then run; release afterwards,
    // also when the block throws. Make the context read-only (`context.isReadOnly = true`), and
    // name it "read", so that its errors say which context refused.
    let context = container.newBackgroundContext()
    context.mergePolicy = .mergeByPropertyObjectTrump
    return try await context.perform { try block(context) }
  }

  /// Runs `block` alone: no read and no other write at the same time; first come, first served.
  public func executeWrite<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    // TODO: wait until nothing runs and nothing waits ahead; a caller cancelled while it waits
    // throws CancellationError and leaves the queue. A block that calls back into this
    // scheduler throws SchedulerError.reentrantCall instead of deadlocking.
    let context = container.newBackgroundContext()
    context.mergePolicy = .mergeByPropertyObjectTrump
    return try await context.perform { try block(context) }
  }

  /// Runs `block` alone, like `executeWrite(_:)`, but waits at most `limit` for its turn: a
  /// caller still waiting by then throws `SchedulerError.timedOut` and leaves the queue.
  public func executeWrite<Result: Sendable>(
    waitingAtMost limit: Duration,
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    // TODO: stretch — bound the wait: a caller that has waited `limit` in the queue leaves it and
    // throws SchedulerError.timedOut, as a cancelled caller leaves with CancellationError. One
    // that gets its turn in time runs as any write, and nothing of the wait outlives the call.
    // The call below tells the checks you have not started: delete it when you do.
    StretchTask.notStarted()
    return try await executeWrite(block)
  }
}
