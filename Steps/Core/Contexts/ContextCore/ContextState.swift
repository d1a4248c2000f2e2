import Foundation

/// The mutable state of one context and of all its objects, guarded by `ContextCore.state`.
final class ContextState {
  weak var owner: ManagedObjectContext?
  var mergePolicy = MergePolicy.error
  var automaticallyMergesChangesFromParent = false
  var isReadOnly = false
  var propagatesDeletesAtEndOfEvent = true
  /// Deleted objects whose delete rules have not run yet: they run at the end of the perform
  /// block, at `processPendingChanges()`, before a fetch, and at save.
  var unpropagatedDeletes: [ManagedObject] = []
  /// The registered objects: weakly held unless they have pending changes (`Registry`).
  var registered = Registry()
  var inserted: Set<ManagedObjectID> = []
  var deleted: Set<ManagedObjectID> = []
  /// Objects written since the last save or rollback: the candidates for `updatedObjects`.
  var touched: Set<ManagedObjectID> = []
  var nextSerial: UInt64 = 1
  /// Temporary IDs this context made permanent on save, so that a child still holding the old ID
  /// finds the object.
  var aliases: [ManagedObjectID: ManagedObjectID] = [:]
  /// The class last inserted, with its key and layout: a run of inserts of one entity looks
  /// them up once, not behind two global locks per object.
  var lastInserted: (entity: ObjectIdentifier, key: EntityKey, layout: EntityLayout)?

  func objects(_ ids: Set<ManagedObjectID>) -> [ManagedObject] {
    ids.compactMap { registered[$0] }
  }

  func resolve(_ id: ManagedObjectID) -> ManagedObjectID {
    // Hashing costs more than the check, and most contexts have no aliases.
    aliases.isEmpty ? id : aliases[id] ?? id
  }
}

extension ContextState {
  /// Whether `object` has changes the context must keep it alive for: Apple's "inserted,
  /// updated, deleted" (`retainsRegisteredObjects`). Updated is any set since the last save.
  func hasPendingChanges(_ object: ManagedObject) -> Bool {
    inserted.contains(object.id) || deleted.contains(object.id) || touched.contains(object.id)
  }

  /// Lets the registry drop the objects it kept for changes that are now saved or discarded.
  func releaseUnchanged() {
    registered.releaseUnchanged { hasPendingChanges($0) }
  }

  /// Whether a save would write anything.
  var hasChanges: Bool {
    !inserted.isEmpty || !deleted.isEmpty || objects(touched).contains { $0.hasPendingChanges }
  }
}
