import Foundation
import Synchronization

/// A one-shot signal: threads wait for it, with a timeout, until someone opens it.
///
/// Waiting blocks the calling thread, so wait from a `DispatchQueue` or a context's queue, not
/// from the cooperative pool (which has only as many threads as the machine has cores).
public final class Gate: Sendable {
  private let condition = NSCondition()
  private let state = Mutex(false)

  public init() {}

  /// Lets every current and future waiter through.
  public func open() {
    condition.lock()
    state.withLock { $0 = true }
    condition.broadcast()
    condition.unlock()
  }

  public var isOpen: Bool { state.withLock { $0 } }

  /// Waits, off the cooperative pool, until the gate is open; false if `timeout` passed first.
  public func opened(within timeout: Duration = defaultWaitTimeout) async -> Bool {
    (try? await offThePool { self.wait(timeout: timeout) }) ?? false
  }

  /// Blocks until the gate is open; false if `timeout` passed first.
  @discardableResult
  public func wait(timeout: Duration = defaultWaitTimeout) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    condition.lock()
    defer { condition.unlock() }
    while !isOpen {
      if !condition.wait(until: deadline) { return isOpen }
    }
    return true
  }
}

/// Lets `parties` threads meet: each `arriveAndWait` returns once all have arrived, or false
/// when the timeout passed first.
public final class Barrier: Sendable {
  private let parties: Int
  private let arrived = Mutex(0)
  private let gate = Gate()

  public init(parties: Int) {
    precondition(parties > 0)
    self.parties = parties
  }

  @discardableResult
  public func arriveAndWait(timeout: Duration = defaultWaitTimeout) -> Bool {
    let count = arrived.withLock { value -> Int in
      value += 1
      return value
    }
    if count == parties { gate.open() }
    return gate.wait(timeout: timeout)
  }
}
