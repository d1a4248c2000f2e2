import Foundation

// Saving: into the parent context, or into the store, all or nothing.

extension ContextCore {
  func save() throws(PersistenceError) {
    // Like NSManagedObjectContextWillSave: a save with changes announces itself first, on the
    // saving thread and outside the lock, so an observer may still use the context.
    if hub.hasWillSaveObservers, state.withLock(\.hasChanges) {
      hub.postWillSave(ContextWillSave(contextName: name))
    }
    let note = try access(.save) { (state) throws(PersistenceError) -> ContextDidSave? in
      try internally { () throws(PersistenceError) in try commit(state) }
    }
    if let note { hub.post(note) }
  }

  private func commit(_ state: ContextState) throws(PersistenceError) -> ContextDidSave? {
    propagateDeletes(in: state)
    if state.isReadOnly, !state.inserted.isEmpty || !state.deleted.isEmpty || !state.touched.isEmpty
    {
      throw .readOnlyContext(name ?? displayName)
    }
    // Rows are numbered in insertion order, so unsorted fetches come back in that order.
    let inserted = state.objects(state.inserted).sorted { $0.insertionSerial < $1.insertionSerial }
    let deleted = state.objects(state.deleted)
    let updated = state.objects(state.touched).filter {
      $0.lifecycle == .persisted && $0.hasPendingChanges
    }
    guard !inserted.isEmpty || !deleted.isEmpty || !updated.isEmpty else { return nil }

    let failures = (inserted + updated).flatMap { object in
      object.cells.filter(\.isMissingRequiredValue).map {
        ValidationFailure(objectID: object.id, entityName: object.entityName, property: $0.name)
      }
    }
    guard failures.isEmpty else {
      throw .validation(
        failures.sorted {
          ($0.objectID.description, $0.property) < ($1.objectID.description, $1.property)
        })
    }

    if let parent {
      return try commit(
        into: parent, inserted: inserted, updated: updated, deleted: deleted, state: state)
    }
    return try commitToStore(inserted: inserted, updated: updated, deleted: deleted, state: state)
  }

  /// A save at the root: the store checks versions and resolves conflicts, all or nothing.
  private func commitToStore(
    inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject],
    state: ContextState
  ) throws(PersistenceError) -> ContextDidSave {
    // Permanent IDs first, so that rows refer to each other by their final IDs.
    let temporary = inserted.filter { $0.id.isTemporaryID }
    var map: [ManagedObjectID: ManagedObjectID] = [:]
    map.reserveCapacity(temporary.count)
    for (object, row) in zip(temporary, store.reserveRows(temporary.count)) {
      map[object.id] = permanentID(row: row, of: object)
    }
    // Only relationships name other objects: attributes need no remapping.
    func final(_ values: [String: StoredValue], of object: ManagedObject) -> [String: StoredValue] {
      object.hasRelationships ? values.mapValues { $0.remapping(map) } : values
    }
    let inserts = inserted.map { object in
      InMemoryStore.Insert(
        row: (map[object.id] ?? object.id).row!, entity: type(of: object),
        values: final(object.storedValues(), of: object))
    }
    let updates = updated.map { object in
      InMemoryStore.Update(
        objectID: object.id, row: object.id.row!,
        changed: final(object.changedStoredValues(), of: object),
        all: final(object.storedValues(), of: object), snapshot: object.committed,
        readVersion: object.version)
    }
    let deletes = deleted.compactMap { object -> InMemoryStore.Delete? in
      guard object.lifecycle == .deleted(wasInserted: false), let row = object.id.row else {
        return nil
      }
      return InMemoryStore.Delete(
        objectID: object.id, row: row, readVersion: object.version, snapshot: object.committed)
    }

    let links = (inserted + updated + deleted).flatMap { $0.changedInverseLinks() }
      .map { $0.remapping(map) }
    let result = try store.commit(
      inserts: inserts, updates: updates, deletes: deletes, links: links,
      policy: state.mergePolicy)

    // The store accepted the save: bring the context in line with it.
    var updatedIDs: Set<ManagedObjectID> = []
    var deletedIDs: Set<ManagedObjectID> = []
    for object in updated + deleted {
      switch result.resolutions[object.id] {
      case .stored(let values, let version, let written)?:
        if written { updatedIDs.insert(object.id) }
        object.lifecycle = .persisted
        object.load(row: values, version: version)
      case .deleted?:
        if object.lifecycle == .deleted(wasInserted: false) { deletedIDs.insert(object.id) }
        detach(object, object.lifecycle == .persisted ? .deletedInStore : .deletionSaved, in: state)
      case nil:
        detach(object, .insertionDiscarded, in: state)
      }
    }
    // An insert that hit a uniqueness constraint became the row that held the key.
    var insertedIDs: Set<ManagedObjectID> = []
    insertedIDs.reserveCapacity(inserted.count)
    for (object, insert) in zip(inserted, inserts) {
      guard let placement = result.placements[insert.row] else {
        // Stored as sent: the row holds what the object holds.
        insertedIDs.insert(permanentID(row: insert.row, of: object))
        object.lifecycle = .persisted
        object.committed = insert.values
        object.version = InMemoryStore.insertedVersion
        continue
      }
      let final = permanentID(row: placement.row, of: object)
      guard placement.row != insert.row else {
        insertedIDs.insert(final)
        object.lifecycle = .persisted
        object.load(row: placement.values, version: placement.version)
        continue
      }
      updatedIDs.insert(final)
      map[object.id] = final
      if let holder = state.registered[final], holder !== object {
        holder.load(row: placement.values, version: placement.version)
        detach(object, .insertionDiscarded, in: state)
        continue
      }
      object.lifecycle = .persisted
      object.load(row: placement.values, version: placement.version)
    }
    rekey(map, in: state)
    state.inserted.removeAll()
    state.deleted.removeAll()
    state.touched.removeAll()
    state.releaseUnchanged()
    return ContextDidSave(
      contextName: name, contextID: id,
      insertedObjectIDs: insertedIDs, updatedObjectIDs: updatedIDs,
      deletedObjectIDs: deletedIDs, reachedStore: true, permanentIDs: map)
  }

  /// A save into the parent context: the changes become the parent's pending changes, as in Core
  /// Data. Objects keep their IDs, temporary ones too, until the parent saves.
  private func commit(
    into parent: ContextCore, inserted: [ManagedObject], updated: [ManagedObject],
    deleted: [ManagedObject], state: ContextState
  ) throws(PersistenceError) -> ContextDidSave {
    let deletions = deleted.filter { $0.lifecycle == .deleted(wasInserted: false) }
    try parent.applyChildSave(
      inserts: inserted.map { ($0.id, type(of: $0), $0.storedValues()) },
      updates: updated.map { ($0.id, $0.changedStoredValues(), $0.committed) },
      deletes: deletions.map(\.id),
      links: (inserted + updated + deleted).flatMap { $0.changedInverseLinks() })
    for object in inserted + updated {
      object.lifecycle = .persisted
      object.committed = object.storedValues()
    }
    for object in deleted {
      let reason: ManagedObject.DetachReason =
        object.lifecycle == .deleted(wasInserted: true) ? .insertionDiscarded : .deletionSaved
      detach(object, reason, in: state)
    }
    state.inserted.removeAll()
    state.deleted.removeAll()
    state.touched.removeAll()
    state.releaseUnchanged()
    return ContextDidSave(
      contextName: name, contextID: id, insertedObjectIDs: Set(inserted.map(\.id)),
      updatedObjectIDs: Set(updated.map(\.id)), deletedObjectIDs: Set(deletions.map(\.id)),
      reachedStore: false, savedInto: parent.id, permanentIDs: [:])
  }
}
