import Foundation

extension ManagedObjectContext {
  /// Whether delete rules run at the end of the event in which objects were deleted (true, the
  /// default, as in Core Data) or only when the context saves. An event ends when a `perform` or
  /// `performAndWait` block returns, at ``processPendingChanges()``, and before a fetch. Code
  /// that uses the main-queue context on the main queue, outside `perform`, has no run loop to end
  /// its events here: its deletes propagate at the next fetch, save or `processPendingChanges()`.
  public var propagatesDeletesAtEndOfEvent: Bool {
    get { core.state.withLock { $0.propagatesDeletesAtEndOfEvent } }
    set { core.state.withLock { $0.propagatesDeletesAtEndOfEvent = newValue } }
  }

  /// Ends the current event now, like Core Data's `processPendingChanges()`: the delete rules of
  /// the objects deleted so far run (the core's rule: nullify the relationships pointing back).
  public func processPendingChanges() {
    core.access(.processPendingChanges) { state in core.propagateDeletes(in: state) }
  }
}
