import Foundation

// Fetching: from the store or the parent, with this context's pending changes on top.

extension ContextCore {
  private enum Candidate {
    /// A registered object; with the row it was matched by, unless it was judged by its own
    /// (unsaved) values.
    case object(ManagedObject, SourceRow?)
    case row(SourceRow)
  }

  /// Matches in store order, then pending inserts; pending deletions are left out. As in Core
  /// Data, an object with unsaved changes is matched against its modified state, every other row
  /// against the store's values (a registered object keeps its values; see
  /// `shouldRefreshRefetchedObjects`), through one reusable probe object, so a fetch materializes
  /// only what it returns. Without `includesPendingChanges`, only the store's values count.
  private func candidates<Entity: ManagedObject>(
    for request: FetchRequest<Entity>, in state: ContextState
  ) throws(PersistenceError) -> [Candidate] {
    func matches(_ object: ManagedObject) throws(PersistenceError) -> Bool {
      guard let predicate = request.predicate else { return true }
      // A pending object with a required attribute still unset would stop the program when the
      // predicate reads it; like a nil in Core Data's in-memory evaluation, it matches nothing.
      if object.lifecycle == .inserted, object.cells.contains(where: \.isMissingRequiredValue) {
        return false
      }
      do {
        return try predicate.evaluate(object as! Entity)
      } catch {
        throw .predicateFailed(String(describing: error))
      }
    }
    // The core ends the event before a fetch that sees pending changes, so that delete rules
    // have run by the time the fetch reads relationships.
    if request.includesPendingChanges, state.propagatesDeletesAtEndOfEvent {
      propagateDeletes(in: state)
    }
    var result: [Candidate] = []
    var probe = RowProbe<Entity>(core: self, predicate: request.predicate)
    let pending = request.includesPendingChanges
    // A fresh context has nothing registered: no need to look each row up.
    let anyRegistered = !state.registered.isEmpty
    for row in sourceRows(of: Entity.self) {
      guard anyRegistered, let object = state.registered[state.resolve(row.id)] else {
        if try probe.matches(row) { result.append(.row(row)) }
        continue
      }
      switch object.lifecycle {
      case .persisted where pending && state.touched.contains(object.id):
        if try matches(object) { result.append(.object(object, nil)) }
      case .persisted:
        if try probe.matches(row) { result.append(.object(object, row)) }
      case .deleted(wasInserted: false) where !pending:
        if try probe.matches(row) { result.append(.object(object, row)) }
      default:
        continue
      }
    }
    guard pending else { return result }
    let inserted = state.objects(state.inserted).filter { $0 is Entity }
      .sorted { $0.insertionSerial < $1.insertionSerial }
    for object in inserted where try matches(object) {
      result.append(.object(object, nil))
    }
    return result
  }

  private func window<Element>(_ elements: [Element], _ offset: Int, _ limit: Int) -> [Element] {
    let dropped = elements.dropFirst(max(offset, 0))
    return Array(limit > 0 ? dropped.prefix(limit) : dropped)
  }

  /// Sorts as the store does: an object matched by its row sorts by the row's values, which
  /// may be newer than the ones it keeps (see `shouldRefreshRefetchedObjects`); the others by
  /// their own, unsaved, values. Equal keys keep the fetch order.
  private func sorted<Entity: ManagedObject>(
    _ objects: [Entity], matchedBy candidates: [Candidate], _ order: [SortDescriptor<Entity>]
  ) -> [Entity] {
    let keys = zip(candidates, objects).map { candidate, object -> Entity in
      guard case .object(let registered, let row?) = candidate, row.values != registered.committed
      else { return object }
      return scratch(row) as! Entity
    }
    let indices = keys.indices.sorted { lhs, rhs in
      for descriptor in order {
        switch descriptor.compare(keys[lhs], keys[rhs]) {
        case .orderedAscending: return true
        case .orderedDescending: return false
        case .orderedSame: continue
        }
      }
      return lhs < rhs
    }
    return indices.map { objects[$0] }
  }

  private func fetchObjects<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>, in state: ContextState
  ) throws(PersistenceError) -> [Entity] {
    try internally { () throws(PersistenceError) -> [Entity] in
      var found = try candidates(for: request, in: state)
      if request.sortDescriptors.isEmpty {
        found = window(found, request.fetchOffset, request.fetchLimit)
      }
      // With a batch size, rows become faults that load a batch at a time on first use.
      let batchSize = request.sortDescriptors.isEmpty ? max(request.fetchBatchSize, 0) : 0
      var batch = FaultBatch()
      var objects = found.map { candidate -> Entity in
        switch candidate {
        case .object(let object, _):
          if request.shouldRefreshRefetchedObjects, object.lifecycle == .persisted {
            reload(object, keepingChanges: true, in: state)
          }
          return object as! Entity
        case .row(let row) where batchSize > 0 && state.registered[row.id] == nil:
          if batch.rows.count == batchSize { batch = FaultBatch() }
          batch.rows.append(row)
          let object = row.entity.init(
            ObjectRegistration(core: self, id: row.id, isInserted: false))
          object.fault = batch
          state.registered[row.id] = object
          return object as! Entity
        case .row(let row):
          return materialize(row, in: state) as! Entity
        }
      }
      if !request.sortDescriptors.isEmpty {
        objects = window(
          sorted(objects, matchedBy: found, request.sortDescriptors), request.fetchOffset,
          request.fetchLimit)
      }
      return objects
    }
  }

  func fetch<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [Entity] {
    try access(.fetch, entity: EntityNames.name(of: Entity.self)) {
      (state) throws(PersistenceError) in
      try fetchObjects(request, in: state)
    }
  }

  func fetchObjectIDs<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [ManagedObjectID] {
    try access(.fetch, entity: EntityNames.name(of: Entity.self)) {
      (state) throws(PersistenceError) in
      guard request.sortDescriptors.isEmpty else {
        return try fetchObjects(request, in: state).map(\.id)
      }
      let found = try internally { () throws(PersistenceError) in
        try candidates(for: request, in: state)
      }
      return window(found, request.fetchOffset, request.fetchLimit).map { candidate in
        switch candidate {
        case .object(let object, _): object.id
        case .row(let row): row.id
        }
      }
    }
  }

  func count<Entity: ManagedObject>(
    for request: FetchRequest<Entity>
  ) throws(PersistenceError) -> Int {
    try access(.count, entity: EntityNames.name(of: Entity.self)) {
      (state) throws(PersistenceError) in
      let found = try internally { () throws(PersistenceError) in
        try candidates(for: request, in: state)
      }
      return window(found, request.fetchOffset, request.fetchLimit).count
    }
  }

  func existingObject(with id: ManagedObjectID) throws(PersistenceError) -> ManagedObject {
    try access(.existingObject, entity: id.entityName) {
      (state) throws(PersistenceError) -> ManagedObject in
      guard id.storeIdentifier == store.identifier else { throw .foreignStore(id) }
      let lookup = sourceLookup(id)
      if let object = state.registered[state.resolve(id)] {
        // A registered object whose row another context deleted is stale: say so.
        if object.lifecycle == .persisted, case .deleted = lookup {
          detach(object, .deletedInStore, in: state)
          throw .objectDeleted(id)
        }
        return object
      }
      switch lookup {
      case .found(let row): return materialize(row, in: state)
      case .deleted: throw .objectDeleted(id)
      case .missing:
        if case .temporary(let context, _) = id.storage, context != self.id {
          throw .temporaryIDOutsideItsContext(id)
        }
        throw .objectNotFound(id)
      }
    }
  }
}
