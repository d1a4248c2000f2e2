import Foundation

/// What a merge or a refresh changed in one context, like `NSManagedObjectContext
/// .didChangeObjectsNotification` (`NSManagedObjectContextObjectsDidChange`): its
/// `NSInsertedObjectsKey`, `NSUpdatedObjectsKey`, `NSDeletedObjectsKey`, `NSRefreshedObjectsKey`
/// and `NSInvalidatedObjectsKey`, as object IDs so that the notification is Sendable.
///
/// The core posts it when a context merges another's save (``ManagedObjectContext/
/// mergeChanges(fromContextDidSave:)`` or `automaticallyMergesChangesFromParent`) and when it
/// refreshes objects; Core Data also posts it at the end of every event with local changes, which
/// the core does not.
public struct ContextObjectsDidChange: Sendable, Hashable {
  /// The context's name, if it had one.
  public let contextName: String?
  /// Objects another context inserted, now registered here (as faults).
  public var insertedObjectIDs: Set<ManagedObjectID> = []
  /// Objects read again that keep unsaved changes here, laid on top (the core's choice: Core
  /// Data's refreshed set holds only objects "not dirtied in the scope of this context").
  public var updatedObjectIDs: Set<ManagedObjectID> = []
  /// Objects read again from the store, with no unsaved changes here.
  public var refreshedObjectIDs: Set<ManagedObjectID> = []
  /// Objects another context deleted, now pending deletions here: a merge calls `delete(_:)` on
  /// them, as Core Data's does, and a refresh that finds the row deleted marks them so.
  public var deletedObjectIDs: Set<ManagedObjectID> = []
  /// Objects this context's parent no longer had when this context read them again (say, an
  /// insert of the parent that was rolled back), now invalid here.
  public var invalidatedObjectIDs: Set<ManagedObjectID> = []

  var isEmpty: Bool {
    insertedObjectIDs.isEmpty && updatedObjectIDs.isEmpty && deletedObjectIDs.isEmpty
      && refreshedObjectIDs.isEmpty && invalidatedObjectIDs.isEmpty
  }
}

/// The observers of one context's ``ContextObjectsDidChange``.
final class ObjectsDidChangeObservers: Sendable {
  private let observers = Locked(
    (next: UInt64(1), all: [UInt64: @Sendable (ContextObjectsDidChange) -> Void]()))

  func add(_ observer: @escaping @Sendable (ContextObjectsDidChange) -> Void) -> UInt64 {
    observers.withLock { state in
      defer { state.next += 1 }
      state.all[state.next] = observer
      return state.next
    }
  }

  func remove(_ token: UInt64) {
    observers.withLock { _ = $0.all.removeValue(forKey: token) }
  }

  /// Calls every observer with `change`, unless it is empty; call it with no lock held.
  func post(_ change: ContextObjectsDidChange) {
    guard !change.isEmpty else { return }
    for observer in observers.withLock({ Array($0.all.values) }) { observer(change) }
  }
}

extension ManagedObjectContext {
  /// Calls `observer` after each merge or refresh that changed objects of this context, on the
  /// thread that did it: inside this context's `perform`, or on its queue for automatic merges.
  @discardableResult
  public func addObjectsDidChangeObserver(
    _ observer: @escaping @Sendable (ContextObjectsDidChange) -> Void
  ) -> SaveObserverToken {
    SaveObserverToken(rawValue: core.objectsDidChange.add(observer))
  }

  /// Ends a registration made with ``addObjectsDidChangeObserver(_:)``.
  public func removeObjectsDidChangeObserver(_ token: SaveObserverToken) {
    core.objectsDidChange.remove(token.rawValue)
  }
}
