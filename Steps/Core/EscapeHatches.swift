import Foundation

// Every place where the core tells the compiler "trust me" lives in this file. Each type states
// the invariant that makes it sound; nothing else in the module uses `@unchecked Sendable` or
// `nonisolated(unsafe)`.

/// A value guarded by a lock.
///
/// Invariant: `state` is only read or written inside `withLock`, so every access is serialized
/// by `lock`. Not reentrant: `body` must not call back into the same `Locked`.
///
/// Lock order, to rule out deadlocks: a context's lock may be taken before the store's, the
/// hub's or the violation log's lock, never after them, and never while holding another
/// context's lock.
final class Locked<State>: @unchecked Sendable {
  private let lock = NSLock()
  private var state: State

  init(_ state: State) {
    self.state = state
  }

  func withLock<Result, Failure: Error>(
    _ body: (inout State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&state)
  }
}

/// The state of a context and its objects, guarded by a recursive lock.
///
/// Invariant: `state` and every object reachable from it (managed objects, their property cells)
/// are only touched inside `withLock`. The lock is recursive because the core re-enters it on the
/// same thread: a fetch holds it while a `Predicate` reads attributes, which take it again.
/// `State` is a class so that a nested `withLock` does not overlap an `inout` access.
final class ReentrantLocked<State: AnyObject>: @unchecked Sendable {
  private let lock = NSRecursiveLock()
  private let state: State

  init(_ state: State) {
    self.state = state
  }

  func withLock<Result, Failure: Error>(
    _ body: (State) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(state)
  }
}

/// Carries a non-Sendable value across a queue hop that the compiler cannot see through.
///
/// Invariant: the value is confined to one managed-object context. It is created by the caller,
/// handed to that context's queue, used there only (inside `perform`), and handed back only after
/// the queue is done with it. Two threads never use it at the same time, which is what the
/// runtime confinement checker verifies for everything inside it.
struct ConfinedTransfer<Value>: @unchecked Sendable {
  var value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// One async `perform` block on its way to the context's queue, and its outcome on the way back.
///
/// Invariant: the same as ``ConfinedTransfer``: the caller creates it and waits; the queue runs
/// the block once and stores the outcome; the caller reads the outcome only after the queue has
/// resumed it. The block is dropped as soon as it has run, before the caller resumes, because
/// `withoutActuallyEscaping` traps if the block outlives the call.
final class PendingBlock<Result, Failure: Error>: @unchecked Sendable {
  private var block: (() throws(Failure) -> Result)?
  private var outcome: Swift.Result<Result, Failure>?

  init(_ block: @escaping () throws(Failure) -> Result) {
    self.block = block
  }

  func run() {
    guard let block = block.take() else { return }
    outcome = Swift.Result { () throws(Failure) -> Result in try block() }
  }

  func takeOutcome() -> Swift.Result<Result, Failure> {
    outcome.take()!
  }
}

/// Lets the Sendable container hold its main-queue context.
///
/// Invariant: `ManagedObjectContext` keeps no mutable state of its own; all of it lives in its
/// `ContextCore`, behind a lock. Sharing the reference is therefore safe. The context type stays
/// non-Sendable on purpose, so that the compiler keeps it and its objects in their region.
struct SharedContextReference: @unchecked Sendable {
  let context: ManagedObjectContext

  init(_ context: ManagedObjectContext) {
    self.context = context
  }
}
