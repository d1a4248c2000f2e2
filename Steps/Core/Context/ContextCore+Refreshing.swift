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
    }
  }

  func reset() {
    access(.reset) { state in
      for object in state.registered.values { object.lifecycle = .detached(.reset) }
      state.registered.removeAll()
      state.inserted.removeAll()
      state.deleted.removeAll()
      state.touched.removeAll()
    }
  }

  func refresh(_ object: ManagedObject, mergeChanges: Bool) {
    access(.refresh, object: object) { proceed, state in
      guard proceed else { return }
      reload(object, keepingChanges: mergeChanges, in: state)
    }
  }

  /// Reads the object's row again; with `keepingChanges`, pending changes are laid on top.
  func reload(
    _ object: ManagedObject, keepingChanges: Bool, in state: ContextState
  ) {
    guard object.lifecycle != .inserted else { return }
    guard case .found(let row) = sourceLookup(object.id) else {
      detach(object, .deletedInStore, in: state)
      return
    }
    let changes = keepingChanges ? object.changedStoredValues() : [:]
    let read = object.committed
    object.load(row: row.values, version: row.version)
    for (name, change) in changes {
      object.cellsByName[name]?.load(change.applied(onto: row.values[name], read: read[name]))
    }
    if changes.isEmpty, object.lifecycle == .persisted { state.touched.remove(object.id) }
  }

  func mergeChanges(fromContextDidSave note: ContextDidSave) {
    access(.mergeChanges) { state in merge(note, in: state) }
  }

  private func merge(_ note: ContextDidSave, in state: ContextState) {
    // A parent's save made temporary IDs permanent: adopt them before looking anything up.
    rekey(note.permanentIDs.filter { state.registered[$0.key] != nil }, in: state)
    for id in note.updatedObjectIDs {
      guard let object = state.registered[id] else { continue }
      reload(object, keepingChanges: true, in: state)
    }
    for id in note.deletedObjectIDs {
      guard let object = state.registered[id] else { continue }
      detach(object, .deletedInStore, in: state)
    }
  }

  /// Called by the hub for every save of another context of the same container. A context that
  /// merges automatically takes the saves of its parent; a context on the store takes the saves
  /// that reached the store.
  func mergeAutomaticallyIfEnabled(_ note: ContextDidSave) {
    let fromParent = parent != nil && parent?.id == note.contextID
    let fromStore = parent == nil && note.reachedStore
    guard fromParent || fromStore, note.contextID != id,
      state.withLock({ $0.automaticallyMergesChangesFromParent })
    else { return }
    enqueue { [self] in
      state.withLock { state in merge(note, in: state) }
    }
  }
}
