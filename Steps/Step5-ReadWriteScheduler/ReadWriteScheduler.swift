import ManagedObjectCore
import Synchronization

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
  private enum Access {
    case read, write
  }

  private struct Waiter {
    let id: UInt64
    let access: Access
    let continuation: CheckedContinuation<Void, any Error>
  }

  /// Who runs, and who waits, in arrival order.
  private struct State {
    var readers = 0
    var writing = false
    var waiting: [Waiter] = []
    var nextID: UInt64 = 0

    func canStart(_ access: Access) -> Bool {
      // TODO: who may start, judged by what runs now (who waits is the caller's concern): a read
      // while no write runs, a write only while nothing runs at all.
      true
    }

    mutating func start(_ access: Access) {
      switch access {
      case .read: readers += 1
      case .write: writing = true
      }
    }

    /// Lets waiting callers in from the front, in order: reads together, a write alone. Stops
    /// at the first that cannot start, so nobody overtakes a waiting write.
    mutating func admit() -> [CheckedContinuation<Void, any Error>] {
      // TODO: while the waiter at the front of the queue may start: start it, take it out of the
      // queue and collect its continuation. Go on through reads; stop after a write (it runs
      // alone) and at the first waiter that may not start. Resume nothing here: whoever calls
      // this resumes what it returns once the lock is let go.
      []
    }
  }

  private let container: PersistentContainer
  /// One lock for all of the state, so that every decision (start, wait, leave, admit) sees all
  /// of it at once. A `Mutex`, not an actor: the cancellation handler cannot `await`.
  private let state = Mutex(State())
  /// The scheduler whose block the current code runs in, to refuse calls back into it.
  @TaskLocal private static var running: ObjectIdentifier?

  public init(container: PersistentContainer) {
    self.container = container
  }

  /// How many calls wait for their turn.
  public var waitingCount: Int {
    // TODO: how many callers wait in the queue. The checks watch this number to see a caller
    // wait: while it says 0, they cannot tell a waiting caller from a lost one.
    0
  }

  /// Runs `block` alongside other reads, never alongside a write. The context is read-only.
  public func executeRead<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    try await execute(.read, block)
  }

  /// Runs `block` alone: no read and no other write at the same time; first come, first served.
  public func executeWrite<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    try await execute(.write, block)
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

  /// Refuses a call from its own block before waiting: that call would wait for the block it
  /// runs in. Each block gets a fresh context: a context keeps what a failed block changed and
  /// did not save, and the next write's save would store it. A read's context is read-only:
  /// reads run side by side because they change nothing. The running block is marked inside
  /// `perform`, on the context's queue, where a value bound around the call would not reach; a
  /// task the block starts inherits the mark, a detached one does not.
  private func execute<Result: Sendable>(
    _ access: Access, _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    guard Self.running != ObjectIdentifier(self) else { throw SchedulerError.reentrantCall }
    try await acquire(access)
    // TODO: from here on this caller holds a slot: give it back when this call ends, whichever
    // way it ends (the block returns or throws). Not earlier: a caller whose acquire threw holds
    // nothing to give back.
    let context = container.newBackgroundContext()
    context.name = access == .read ? "read" : "write"
    context.isReadOnly = access == .read
    context.mergePolicy = .mergeByPropertyObjectTrump
    let me = ObjectIdentifier(self)
    return try await context.perform {
      try Self.$running.withValue(me) { try block(context) }
    }
  }

  /// Returns when `access` may start; throws CancellationError if the caller is cancelled while
  /// it waits, and then leaves the queue. Each caller has an id of its own, so that leaving takes
  /// out its own waiter and nobody else's. The cancellation handler runs on the canceller's
  /// thread at any moment: before the waiter is queued (it finds nothing, and `startOrWait` sees
  /// the cancellation), while it waits, or after its turn (it finds nothing).
  private func acquire(_ access: Access) async throws {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: Continuation) in
        // Whether the caller waits matters to the stretch task only.
        _ = startOrWait(id: id, access: access, continuation: continuation)
      }
    } onCancel: {
      leave(id: id)
    }
  }

  private typealias Continuation = CheckedContinuation<Void, any Error>

  /// Starts at once if nothing runs in the way and nobody waits ahead; else joins the queue.
  /// True when the caller waits in the queue. A caller already cancelled throws instead, whether
  /// the slot is free or not; it is looked at under the lock that queues, so that a caller never
  /// joins the queue after its cancellation handler has searched it.
  private func startOrWait(id: UInt64, access: Access, continuation: Continuation) -> Bool {
    enum Decision { case start, wait, cancelled }
    let decision = state.withLock { state -> Decision in
      if Task.isCancelled { return .cancelled }
      // TODO: start at once only when nobody waits ahead and `canStart` allows it; otherwise
      // join the back of the queue (a waiter with this caller's id, access and continuation)
      // and wait. As it is, every caller starts at once.
      state.start(access)
      return .start
    }
    switch decision {
    case .start: continuation.resume()
    case .cancelled: continuation.resume(throwing: CancellationError())
    case .wait: return true
    }
    return false
  }

  /// A cancelled caller, or one that waited too long, leaves the queue with `error`, which may
  /// let the callers behind it start. Whoever removes a waiter resumes it, once: a waiter
  /// already gone (admitted, or never queued) is left alone.
  private func leave(id: UInt64, throwing error: any Error = CancellationError()) {
    var cancelled: Continuation?
    var admitted: [Continuation] = []
    state.withLock { state in
      guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return }
      cancelled = state.waiting.remove(at: index).continuation
      admitted = state.admit()
    }
    cancelled?.resume(throwing: error)
    for continuation in admitted { continuation.resume() }
  }

  /// Gives back the slot of a block that ended, however it ended, and lets in whoever may start
  /// now.
  private func release(_ access: Access) {
    // TODO: under the lock, give the slot back (one read fewer, or no write running) and let in
    // whoever may start now; resume their continuations after the lock is let go.
  }
}
