import Foundation

extension ManagedObjectContext {
  /// Whether delete rules run at the end of the event in which objects were deleted (true, the
  /// default, as in Core Data) or "only during a save operation". An event ends when a `perform`
  /// block returns (Apple: `perform` "encapsulates an autorelease pool and a call to
  /// processPendingChanges()"), at ``processPendingChanges()``, and, in the core, before a fetch.
  /// `performAndWait` does not end one. Code that uses the main-queue context on the main queue,
  /// outside `perform`, has no run loop here to end its events.
  public var propagatesDeletesAtEndOfEvent: Bool {
    get { core.state.withLock { $0.propagatesDeletesAtEndOfEvent } }
    set { core.state.withLock { $0.propagatesDeletesAtEndOfEvent = newValue } }
  }

  /// Ends the current event now, like Core Data's `processPendingChanges()`: unless
  /// ``propagatesDeletesAtEndOfEvent`` is false, the delete rules of the objects deleted so far
  /// run (the core's one rule: nullify the relationships pointing back).
  public func processPendingChanges() {
    core.access(.processPendingChanges) { state in
      if state.propagatesDeletesAtEndOfEvent { core.propagateDeletes(in: state) }
    }
  }
}
