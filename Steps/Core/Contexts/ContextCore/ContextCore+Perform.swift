import Dispatch

// Perform: running blocks on the context's queue, inside its perform scope.

extension ContextCore {
  /// Runs a `perform` block in `frame`, then ends the event: Apple's `perform` "encapsulates an
  /// autorelease pool and a call to processPendingChanges()" (delete rules run then;
  /// `propagatesDeletesAtEndOfEvent`). `performAndWait` and an inline `.immediate` perform run
  /// inside the caller's event, so they do not end it.
  func event<Result, Failure: Error>(
    _ frame: PerformScope.Frame, _ block: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    defer { processPendingChanges(endOfEvent: true) }
    return try PerformScope.run(frame: frame, block)
  }

  func enqueue(_ block: @escaping @Sendable () -> Void) {
    let frame = ownFrame()
    queue.async { [self] in
      event(frame, block)
    }
  }

  func performAndWait<Result, Failure: Error>(
    _ block: @Sendable () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let frame = nestedFrame()
    // Reentrant, as Core Data's: inline when this thread already runs a block of this context,
    // also from a `sync` block of another queue in it, where `queue.sync` would deadlock.
    if isInScope || PerformScope.threadHolds(id) {
      return try PerformScope.run(frame: frame, block)
    }
    // Recorded as a wait, so that two queues that wait for each other can be seen
    // (`ManagedObjectContext.performAndWaitCycle`).
    let outcome: Swift.Result<Result, Failure> = WaitsFor.waiting(for: self) {
      queue.sync {
        PerformScope.run(frame: frame) {
          Swift.Result { () throws(Failure) -> Result in try block() }
        }
      }
    }
    return try outcome.get()
  }

  func perform<Result, Failure: Error>(
    schedule: ManagedObjectContext.ScheduledTaskType,
    _ block: @escaping @Sendable () throws(Failure) -> Result
  ) async throws(Failure) -> Result {
    if schedule == .immediate, isInScope {
      return try PerformScope.run(frame: nestedFrame(), block)
    }
    let frame = ownFrame()
    let outcome = await withUnsafeContinuation {
      (continuation: UnsafeContinuation<Swift.Result<Result, Failure>, Never>) in
      queue.async { [self] in
        let outcome = event(frame) {
          Swift.Result { () throws(Failure) -> Result in try block() }
        }
        continuation.resume(returning: outcome)
      }
    }
    // The resumed task reads what the block wrote (an object it made, its `let`s) before it
    // takes any lock. The continuation orders those accesses, but ThreadSanitizer cannot see
    // through the concurrency runtime on Linux (swiftlang/swift#57803, .ci/tsan-suppressions.txt);
    // taking the context's lock once, which the block released last, shows it the order.
    state.withLock { _ in }
    return try outcome.get()
  }
}
