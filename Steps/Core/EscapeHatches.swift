import Foundation

// Every place where the core tells the compiler "trust me" lives in this file. Each type states
// the invariant that makes it sound; nothing else in the module uses `@unchecked Sendable` or
// `nonisolated(unsafe)`. The concurrency model as a whole: `Steps/Core/CONCURRENCY.md`.

/// A value guarded by a lock.
///
/// Invariant: `state` is only read or written inside `withLock`, so every access is serialized
/// by `lock`. Not reentrant: `body` must not call back into the same `Locked`.
///
/// Which lock guards what, and the order they are taken in: `Steps/Core/CONCURRENCY.md`.
// Unchecked because the compiler cannot see `lock` guard `state`; the invariant above does.
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
// Unchecked because the compiler cannot see the recursive lock guard `state`; no standard
// library lock is recursive, and the core needs one (see above).
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
