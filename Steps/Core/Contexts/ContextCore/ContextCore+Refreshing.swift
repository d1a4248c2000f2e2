import Foundation

// Rolling back, resetting, refreshing, and merging other contexts' saves.

extension ContextCore {
  func rollback() {
    access(.rollback) { state in
      for object in state.objects(state.inserted.union(state.deleted)) {
        if object.lifecycle == .inserted || object.lifecycle == .deleted(wasInserted: true) {
          detach(object, .insertionDiscarded, in: state)
        }
      }
      for object in state.objects(state.touched.union(state.deleted)) {
        object.lifecycle = .persisted
        object.load(row: object.committed, version: object.version)
      }
      state.inserted.removeAll()
      state.deleted.removeAll()
      state.touched.removeAll()
      state.unpropagatedDeletes.removeAll()
      state.releaseUnchanged()
    }
  }

  func reset() {
    access(.reset) { state in
      for object in state.registered.values { object.lifecycle = .detached(.reset) }
      state.registered.removeAll()
      state.unpropagatedDeletes.removeAll()
      state.inserted.removeAll()
      state.deleted.removeAll()
      state.touched.removeAll()
    }
  }

  /// Core Data: with `mergeChanges` false, pending changes are discarded "and the managed object
  /// becomes a fault"; with true, the store's values are read and local changes applied over
  /// them (`refresh(_:mergeChanges:)`).
  func refresh(_ object: ManagedObject, mergeChanges: Bool) {
    let change = access(.refresh, object: object) { proceed, state -> ContextObjectsDidChange in
      var change = ContextObjectsDidChange(contextName: name)
      guard proceed else { return change }
      record(reload(object, keepingChanges: mergeChanges, in: state), of: object.id, in: &change)
      if !mergeChanges, object.lifecycle == .persisted,
        case .found(let row) = sourceLookup(object.id)
      {
        object.fault = FaultBatch(rows: [row])
      }
      return change
    }
    objectsDidChange.post(change)
  }

  /// Refreshes every registered object, keeping unsaved changes (WWDC 2015, "What's New in Core
  /// Data": `refreshAllObjects` "refreshes all the objects in the context while preserving the
  /// unsaved changes" and breaks retain cycles): an object without changes becomes a fault, and
  /// one whose row another context deleted a pending deletion.
  func refreshAllObjects() {
    let change = access(.refreshAllObjects) { state -> ContextObjectsDidChange in
      var change = ContextObjectsDidChange(contextName: name)
      for object in Array(state.registered.values) {
        let outcome = reload(object, keepingChanges: true, in: state)
        if outcome == .refreshed, case .found(let row) = sourceLookup(object.id) {
          object.fault = FaultBatch(rows: [row])
        }
        record(outcome, of: object.id, in: &change)
      }
      return change
    }
    objectsDidChange.post(change)
  }

  /// What a reload did to one object.
  enum Reloaded {
    case untouched, refreshed, updated, deleted, invalidated
  }

  private func record(
    _ outcome: Reloaded, of id: ManagedObjectID, in change: inout ContextObjectsDidChange
  ) {
    switch outcome {
    case .untouched: break
    case .refreshed: change.refreshedObjectIDs.insert(id)
    case .updated: change.updatedObjectIDs.insert(id)
    case .deleted: change.deletedObjectIDs.insert(id)
    case .invalidated: change.invalidatedObjectIDs.insert(id)
    }
  }

  /// Reads the object's row again; with `keepingChanges`, pending changes are laid on top.
  @discardableResult
  func reload(
    _ object: ManagedObject, keepingChanges: Bool, in state: ContextState
  ) -> Reloaded {
    guard object.lifecycle != .inserted else { return .untouched }
    let row: SourceRow
    switch sourceLookup(object.id) {
    case .found(let found): row = found
    case .deleted:
      // Another context deleted the row. Core Data does not invalidate the object: refreshed, it
      // fires as a deleted object (`shouldDeleteInaccessibleFaults`). Here it becomes a pending
      // deletion with its last values, as a merge of that deletion makes it; one already pending
      // stays so.
      guard markDeleted(object, in: state) else { return .untouched }
      if !keepingChanges, object.fault == nil {
        object.load(row: object.committed, version: object.version)
      }
      state.touched.remove(object.id)
      state.unpropagatedDeletes.append(object)
      return .deleted
    case .missing:
      // A child's parent dropped the row (say, it rolled back the insert): nothing to delete.
      detach(object, .goneFromParent, in: state)
      return .invalidated
    }
    // A fault has no values of its own to keep: it stays a fault, and reads its row when it
    // fires; the new row is the last it has seen.
    if object.fault != nil {
      object.fault = FaultBatch(rows: [row])
      return .refreshed
    }
    let changes = keepingChanges ? object.changedStoredValues() : [:]
    let read = object.committed
    object.fault = nil
    object.load(row: row.values, version: row.version)
    for (name, change) in changes {
      object.cellsByName[name]?.load(change.applied(onto: row.values[name], read: read[name]))
    }
    if changes.isEmpty, object.lifecycle == .persisted {
      state.touched.remove(object.id)
      state.registered.release(object)
    }
    return changes.isEmpty ? .refreshed : .updated
  }

  func mergeChanges(fromContextDidSave note: ContextDidSave) {
    let change = access(.mergeChanges) { state in merge(note, in: state) }
    objectsDidChange.post(change)
  }

  /// `mergeChanges(fromRemoteContextSave:into:)` for this context: as a did-save merge, except
  /// that deleted objects are removed, not deleted here. Apple, `NSBatchDeleteRequest`: "you must
  /// remove any deleted objects from memory after the request finishes", by this call; their rows
  /// are gone already, so there is nothing left for a save to do with them.
  func mergeRemoteChanges(_ note: ContextDidSave) {
    let change = access(.mergeChanges) { state in merge(note, removingDeleted: true, in: state) }
    objectsDidChange.post(change)
  }

  /// Core Data's `mergeChanges(fromContextDidSave:)`, which "refreshes any objects which have
  /// been updated in the other context, faults in any newly-inserted objects, and invokes
  /// `delete(_:)` on those which have been deleted": updated objects keep their local changes, and
  /// a deleted one becomes a pending deletion here, whose delete rules run at the end of the event
  /// and which the next save drops from the store's point of view (its row is already gone).
  private func merge(
    _ note: ContextDidSave, removingDeleted: Bool = false, in state: ContextState
  ) -> ContextObjectsDidChange {
    var change = ContextObjectsDidChange(contextName: name)
    // A parent's save made temporary IDs permanent: adopt them before looking anything up.
    rekey(note.permanentIDs.filter { state.registered[$0.key] != nil }, in: state)
    for id in note.insertedObjectIDs where state.registered[state.resolve(id)] == nil {
      guard case .found(let row) = sourceLookup(id) else { continue }
      registerFault(row, in: state)
      change.insertedObjectIDs.insert(row.id)
    }
    for id in note.updatedObjectIDs {
      guard let object = state.registered[state.resolve(id)] else { continue }
      record(reload(object, keepingChanges: true, in: state), of: object.id, in: &change)
    }
    for id in note.deletedObjectIDs {
      guard let object = state.registered[state.resolve(id)] else { continue }
      if removingDeleted, object.lifecycle != .inserted {
        // Other objects keep their links to it, as the store's rows do: a batch delete changes
        // nothing else.
        detach(object, .removedByMerge, in: state)
        change.deletedObjectIDs.insert(object.id)
        continue
      }
      guard markDeleted(object, in: state) else { continue }
      state.unpropagatedDeletes.append(object)
      change.deletedObjectIDs.insert(object.id)
    }
    return change
  }

  /// Called by the hub for every save of another context of the same container. Apple: the
  /// context "automatically merges changes saved to its persistent store coordinator or parent
  /// context". A child therefore takes a sibling's save into their shared parent, and its
  /// parent's own saves; a context on the store takes the saves that reached the store.
  func mergeAutomaticallyIfEnabled(_ note: ContextDidSave) {
    let intoParent = parent != nil && note.savedInto == parent?.id
    let fromParent = parent != nil && parent?.id == note.contextID
    let fromStore = parent == nil && note.reachedStore
    guard intoParent || fromParent || fromStore, note.contextID != id,
      state.withLock({ $0.automaticallyMergesChangesFromParent })
    else { return }
    enqueue { [self] in
      let change = state.withLock { state in merge(note, in: state) }
      objectsDidChange.post(change)
    }
  }
}
