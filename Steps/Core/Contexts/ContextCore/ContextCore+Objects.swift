import Foundation

// The registry: inserting, materializing, relating, deleting and re-keying objects, and the
// questions about a context's pending changes.

extension ContextCore {
  func registrationForInsert(of entity: ManagedObject.Type) -> ObjectRegistration {
    let (serial, key, layout) = state.withLock { state in
      defer { state.nextSerial += 1 }
      let known = state.lastInserted.flatMap { $0.entity == ObjectIdentifier(entity) ? $0 : nil }
      let kind =
        known ?? (
          ObjectIdentifier(entity), .of(entity, in: store.identifier), .of(entity, core: self)
        )
      state.lastInserted = kind
      return (state.nextSerial, kind.key, kind.layout)
    }
    let id = ManagedObjectID(key: key, storage: .temporary(context: self.id, serial: serial))
    return ObjectRegistration(core: self, id: id, isInserted: true, layout: layout)
  }

  func didInsert(_ object: ManagedObject) {
    access(.insert, entity: object.entityName) { state in
      state.registered[object.id] = object
      state.inserted.insert(object.id)
      state.registered.retain(object)
    }
  }

  func permanentID(row: Int64, entity: ManagedObject.Type) -> ManagedObjectID {
    ManagedObjectID(key: .of(entity, in: store.identifier), storage: .permanent(row: row))
  }

  /// The permanent ID of `object`'s row: same store and entity as its current ID, so no look-up.
  func permanentID(row: Int64, of object: ManagedObject) -> ManagedObjectID {
    ManagedObjectID(key: object.id.key, storage: .permanent(row: row))
  }

  /// Fires `object`, if it is a fault, with the rest of its batch (lock held). Each member loads
  /// its row as the parent context or the store holds it now, as Core Data's fault does; the row
  /// the batch kept from when the fault was made is only the values the member last saw, for
  /// when its row is gone (`fulfil`). Members are found by their current IDs: a save or a merge
  /// may have made a temporary ID permanent since.
  func fireFault(_ object: ManagedObject, in state: ContextState) {
    guard object.core === self, let batch = object.fault else { return }
    for row in batch.rows {
      guard let member = state.registered[state.resolve(row.id)], member.fault === batch else {
        continue
      }
      fulfil(member, lastSeen: row, in: state)
    }
    // No longer registered (its context was reset): nothing to read, it keeps what it last saw.
    guard object.fault === batch else { return }
    let row = batch.rows.first { $0.id == object.id || state.resolve($0.id) == object.id }
    object.load(row: row?.values ?? [:], version: row?.version ?? 0)
  }

  /// Loads a fault's current row (lock held). A row that is gone everywhere (deleted in the store,
  /// or dropped by the parent) makes the object a pending deletion, as Core Data's
  /// `shouldDeleteInaccessibleFaults` (true by default) does, discarded at the next save; it
  /// keeps the values it last saw, where Core Data's are "set to nil or 0", which a Swift
  /// attribute that is not optional cannot hold (Tests/FIDELITY.md, "Where it differs").
  private func fulfil(_ object: ManagedObject, lastSeen: SourceRow, in state: ContextState) {
    guard case .found(let row) = sourceLookup(object.id) else {
      object.load(row: lastSeen.values, version: lastSeen.version)
      if markDeleted(object, in: state) { state.unpropagatedDeletes.append(object) }
      return
    }
    object.load(row: row.values, version: row.version)
  }

  @discardableResult
  func materialize(_ row: SourceRow, in state: ContextState) -> ManagedObject {
    if let existing = state.registered[row.id] { return existing }
    let object = row.entity.init(ObjectRegistration(core: self, id: row.id, isInserted: false))
    object.load(row: row.values, version: row.version)
    state.registered[row.id] = object
    return object
  }

  /// Registers `row` as a fault: its values load on first use, as the row is then (lock held).
  @discardableResult
  func registerFault(_ row: SourceRow, in state: ContextState) -> ManagedObject {
    if let existing = state.registered[row.id] { return existing }
    let object = row.entity.init(ObjectRegistration(core: self, id: row.id, isInserted: false))
    object.fault = FaultBatch(rows: [row])
    state.registered[row.id] = object
    return object
  }

  /// The registered object for `id`, fetched from the parent if needed (lock held).
  func object(for id: ManagedObjectID, in state: ContextState) -> ManagedObject? {
    if let object = state.registered[state.resolve(id)] {
      fireFault(object, in: state)
      return object
    }
    guard case .found(let row) = sourceLookup(id) else { return nil }
    return materialize(row, in: state)
  }

  private func relationshipCell(_ name: String, of object: ManagedObject) -> PropertyCell {
    guard let cell = object.cellsByName[name], cell.isRelationship else {
      preconditionFailure("\(object.entityName) has no relationship named '\(name)'")
    }
    return cell
  }

  /// Sets a relationship and keeps its inverse in step.
  func relate(
    _ object: ManagedObject, through property: PropertyLayout, to targets: [ManagedObject]
  ) {
    access(.write, object: object, others: targets, property: property.name) { proceed, state in
      guard proceed else { return }
      let cell = PropertyCell(object: object, property: property)
      let old = cell.targets
      let new = Set(targets.map(\.id))
      cell.targets = new
      object.markWritten(in: state)
      guard let inverse = cell.inverseName else { return }
      for removed in old.subtracting(new) {
        guard let target = self.object(for: removed, in: state) else { continue }
        relationshipCell(inverse, of: target).targets.remove(object.id)
        target.markWritten(in: state)
      }
      for target in targets where !old.contains(target.id) {
        let inverseCell = relationshipCell(inverse, of: target)
        if inverseCell.isToMany {
          inverseCell.targets.insert(object.id)
        } else {
          for previous in inverseCell.targets where previous != object.id {
            guard let owner = self.object(for: previous, in: state) else { continue }
            relationshipCell(cell.name, of: owner).targets.remove(target.id)
            owner.markWritten(in: state)
          }
          inverseCell.targets = [object.id]
        }
        target.markWritten(in: state)
      }
    }
  }

  /// Marks `object` deleted. Its delete rules (the core's: nullify) run later, as in Core Data,
  /// which "propagates deletes at the end of the event in which a change was made"
  /// (`propagatesDeletesAtEndOfEvent`), or at save when that is false.
  func delete(_ object: ManagedObject) {
    access(.delete, object: object) { proceed, state in
      guard proceed, markDeleted(object, in: state) else { return }
      state.unpropagatedDeletes.append(object)
    }
  }

  /// Runs the delete rules of the objects deleted since the last time (lock held): the objects
  /// pointing back at each forget it. An object that was never saved then leaves the context:
  /// Apple, `delete(_:)`: "If object has not yet been saved to a persistent store, it is simply
  /// removed from the receiver."
  func propagateDeletes(in state: ContextState) {
    let deleted = state.unpropagatedDeletes
    state.unpropagatedDeletes.removeAll()
    for object in deleted {
      guard case .deleted(let wasInserted) = object.lifecycle else { continue }
      // A deletion merged into a fault: its relationships are in its row.
      fireFault(object, in: state)
      for cell in object.cells where cell.isRelationship {
        guard let inverse = cell.inverseName else { continue }
        for targetID in cell.targets {
          // A merged deletion may find the other side already read without it.
          guard let target = self.object(for: targetID, in: state),
            relationshipCell(inverse, of: target).targets.remove(object.id) != nil
          else { continue }
          target.markWritten(in: state)
        }
      }
      if wasInserted { detach(object, .insertionDiscarded, in: state) }
    }
  }

  /// The end of an event: a perform block returned, or `processPendingChanges()` was called.
  func processPendingChanges(endOfEvent: Bool) {
    state.withLock { state in
      guard !state.unpropagatedDeletes.isEmpty,
        !endOfEvent || state.propagatesDeletesAtEndOfEvent
      else { return }
      propagateDeletes(in: state)
    }
  }

  /// Marks `object` for deletion at the next save (lock held); false if there was nothing to do.
  func markDeleted(_ object: ManagedObject, in state: ContextState) -> Bool {
    switch object.lifecycle {
    case .inserted: object.lifecycle = .deleted(wasInserted: true)
    case .persisted: object.lifecycle = .deleted(wasInserted: false)
    case .deleted, .detached, .scratch: return false
    }
    state.inserted.remove(object.id)
    state.deleted.insert(object.id)
    state.registered.retain(object)
    return true
  }

  func detach(
    _ object: ManagedObject, _ reason: ManagedObject.DetachReason,
    in state: ContextState
  ) {
    object.lifecycle = .detached(reason)
    state.registered[object.id] = nil
    state.inserted.remove(object.id)
    state.deleted.remove(object.id)
    state.touched.remove(object.id)
  }

  /// Gives the objects this context holds new IDs and rewrites every reference to the old ones
  /// (lock held). IDs of objects it does not hold are left out, of the aliases too.
  func rekey(_ map: [ManagedObjectID: ManagedObjectID], in state: ContextState) {
    guard !map.isEmpty else { return }
    var skipped: Set<ManagedObjectID> = []
    for (old, new) in map {
      guard let object = state.registered.rekey(old, to: new) else {
        skipped.insert(old)
        continue
      }
      object.id = new
      // `inserted` and `deleted` hold an object only while its lifecycle says so, so the sets
      // are only searched for those: a save re-keys every insert it has just made persistent.
      switch object.lifecycle {
      case .inserted:
        if state.inserted.remove(old) != nil { state.inserted.insert(new) }
      case .deleted:
        if state.deleted.remove(old) != nil { state.deleted.insert(new) }
      case .persisted, .detached, .scratch:
        break
      }
      if !state.touched.isEmpty, state.touched.remove(old) != nil { state.touched.insert(new) }
    }
    let aliases = skipped.isEmpty ? map : map.filter { !skipped.contains($0.key) }
    if state.aliases.isEmpty {
      state.aliases = aliases  // shares the map's storage: a big first save does not copy it
    } else {
      state.aliases.merge(aliases) { $1 }
    }
    for object in state.registered.values where object.hasRelationships {
      for cell in object.cells { cell.remap(map) }
      object.committed = object.committed.mapValues { $0.remapping(map) }
    }
  }

  func obtainPermanentIDs(for objects: [ManagedObject]) {
    access(.obtainPermanentIDs, object: nil, others: objects) { proceed, state in
      guard proceed else { return }
      let temporary = objects.filter { $0.id.isTemporaryID }
      let rows = store.reserveRows(temporary.count)
      var map: [ManagedObjectID: ManagedObjectID] = [:]
      for (object, row) in zip(temporary, rows) {
        map[object.id] = permanentID(row: row, of: object)
      }
      rekey(map, in: state)
    }
  }

  // MARK: - Inspecting changes

  var hasChanges: Bool {
    access(.inspectChanges) { $0.hasChanges }
  }

  func insertedObjects() -> Set<ManagedObject> {
    access(.inspectChanges) { Set($0.objects($0.inserted)) }
  }

  func deletedObjects() -> Set<ManagedObject> {
    access(.inspectChanges) { Set($0.objects($0.deleted)) }
  }

  func updatedObjects() -> Set<ManagedObject> {
    access(.inspectChanges) { state in
      // Any set marks an object updated, also to the value it had (Core Data's `hasChanges`).
      Set(state.objects(state.touched).filter { $0.lifecycle == .persisted })
    }
  }

  func registeredObjects() -> Set<ManagedObject> {
    access(.inspectChanges) { Set($0.registered.values) }
  }
}

extension ManagedObject {
  /// Orders pending inserts by creation (lock held).
  var insertionSerial: UInt64 {
    if case .temporary(_, let serial) = id.storage { return serial }
    return 0
  }
}
