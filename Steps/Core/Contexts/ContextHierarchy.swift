import Foundation

// Parent and child contexts (the MagicalRecord article's stack). A context reads from and saves
// into its parent: another context, or the store at the root. A child's save becomes pending
// changes of its parent; only the root's save reaches the store.
//
// A child takes its parent's lock while holding its own; the lock order is in
// `Steps/Core/CONCURRENCY.md`.

/// A row as a context's parent presents it: from the store, or from a parent context with its
/// pending changes applied.
struct SourceRow {
  let id: ManagedObjectID
  let entity: ManagedObject.Type
  let values: [String: StoredValue]
  let version: Int
}

enum SourceLookup {
  case found(SourceRow)
  case deleted
  case missing
}

extension ContextCore {
  /// The rows of `entity` as this context's parent presents them.
  func sourceRows<Entity: ManagedObject>(of entity: Entity.Type) -> [SourceRow] {
    guard let parent else {
      // One key per class, not one global look-up per row.
      var last: (entity: ObjectIdentifier, key: EntityKey)?
      return store.rows(of: entity).map { row, value in
        let known = last.flatMap { $0.entity == ObjectIdentifier(value.entity) ? $0.key : nil }
        let key = known ?? EntityKey.of(value.entity, in: store.identifier)
        last = (ObjectIdentifier(value.entity), key)
        return SourceRow(
          id: ManagedObjectID(key: key, storage: .permanent(row: row)), entity: value.entity,
          values: value.values, version: value.version)
      }
    }
    return parent.state.withLock { parent.viewRows(of: entity, in: $0) }
  }

  /// One row as this context's parent presents it.
  func sourceLookup(_ id: ManagedObjectID) -> SourceLookup {
    guard let parent else {
      guard let row = id.row else { return .missing }
      switch store.row(row) {
      case .found(let value):
        return .found(
          SourceRow(id: id, entity: value.entity, values: value.values, version: value.version))
      case .deleted: return .deleted
      case .missing: return .missing
      }
    }
    return parent.state.withLock { parent.viewLookup(id, in: $0) }
  }

  /// A loaded object's row: its values, unsaved changes included (lock held).
  private func row(of object: ManagedObject) -> SourceRow {
    SourceRow(
      id: object.id, entity: type(of: object), values: object.storedValues(),
      version: object.version)
  }

  /// What a child of this context sees (lock held): this context's rows, with its pending
  /// inserts, edits and deletions applied.
  func viewRows<Entity: ManagedObject>(
    of entity: Entity.Type, in state: ContextState
  ) -> [SourceRow] {
    var rows: [SourceRow] = []
    for source in sourceRows(of: entity) {
      guard let object = state.registered[state.resolve(source.id)] else {
        rows.append(source)
        continue
      }
      // A fault has no values of its own yet: the row is the one this context reads now.
      if object.lifecycle == .persisted {
        rows.append(object.fault == nil ? row(of: object) : source)
      }
    }
    let inserted = state.objects(state.inserted).filter { $0 is Entity }
      .sorted { $0.insertionSerial < $1.insertionSerial }
    rows.append(contentsOf: inserted.map(row(of:)))
    return rows
  }

  /// One row as a child of this context sees it (lock held).
  func viewLookup(_ id: ManagedObjectID, in state: ContextState) -> SourceLookup {
    guard let object = state.registered[state.resolve(id)] else { return sourceLookup(id) }
    switch object.lifecycle {
    case .persisted where object.fault != nil: return sourceLookup(object.id)
    case .inserted, .persisted: return .found(row(of: object))
    case .deleted: return .deleted
    case .detached, .scratch: return .missing
    }
  }

  /// Takes a child's save as pending changes of this context. Every object it names is
  /// resolved first, so a save that cannot apply changes nothing.
  /// An update of an object this context does not have is `objectNotFound`; a deletion of one
  /// has nothing left to do (say, a deletion the child merged from this context's save).
  /// Then the lists of `links` follow their to-one sides (ToManyChanges.swift).
  func applyChildSave(
    inserts: [(id: ManagedObjectID, entity: ManagedObject.Type, values: [String: StoredValue])],
    updates: [(id: ManagedObjectID, changes: [String: StoredValue], read: [String: StoredValue])],
    deletes: [ManagedObjectID], links: [InverseLink]
  ) throws(PersistenceError) {
    try state.withLock { (state: ContextState) throws(PersistenceError) in
      var targets: [ManagedObjectID: ManagedObject] = [:]
      for id in updates.map(\.id) {
        guard let object = object(for: id, in: state), !object.isDetached else {
          throw .objectNotFound(id)
        }
        targets[id] = object
      }
      // A deletion the child merged from here may name an object already gone: nothing to do.
      let deleting = deletes.compactMap { id in
        object(for: id, in: state).flatMap { $0.isDetached ? nil : $0 }
      }
      let owners = owners(of: links, in: state)
      for insert in inserts {
        let object = insert.entity.init(
          ObjectRegistration(core: self, id: insert.id, isInserted: true))
        for cell in object.cells { cell.load(insert.values[cell.name]) }
        state.registered[insert.id] = object
        state.inserted.insert(insert.id)
        state.registered.retain(object)
      }
      for update in updates {
        let object = targets[update.id]!
        // A to-many side takes the child's additions and removals, not its whole set, so that
        // two children that add to the same object both keep their additions.
        for (name, value) in update.changes {
          guard let cell = object.cellsByName[name] else { continue }
          cell.load(value.applied(onto: cell.stored, read: update.read[name]))
        }
        state.touched.insert(object.id)
        state.registered.retain(object)
      }
      for object in deleting where markDeleted(object, in: state) {
        state.unpropagatedDeletes.append(object)
      }
      follow(links, before: owners, in: state)
      // The child's deletions are this context's now: their delete rules run here too, at the
      // end of this event (the child's save) or at this context's save, as
      // `propagatesDeletesAtEndOfEvent` says; the child ran them only over what it had read.
      if state.propagatesDeletesAtEndOfEvent { propagateDeletes(in: state) }
    }
  }
}

extension ContextCore {
  /// The row `id` names, as a scratch object a row probe's predicate may follow (lock held):
  /// never registered, so a predicate through a relationship registers nothing.
  func probeTarget(_ id: ManagedObjectID) -> ManagedObject? {
    guard case .found(let row) = sourceLookup(id) else { return nil }
    return scratch(row)
  }

  /// An unregistered object holding `row`'s values, for judging or sorting the row as the store
  /// would; its relationships lead to scratch objects too.
  func scratch(_ row: SourceRow) -> ManagedObject {
    let object = row.entity.init(ObjectRegistration(core: self, id: row.id, isInserted: false))
    object.load(row: row.values, version: row.version)
    object.lifecycle = .scratch
    return object
  }
}

/// Judges rows by a predicate without materializing them: the row's values are loaded into one
/// reusable scratch object per entity class, which the predicate reads (lock held, in scope).
struct RowProbe<Entity: ManagedObject> {
  // The fields every row reads come first: in code that is generic over `Entity`, reaching them
  // costs no metadata look-up, which over 100,000 rows is most of a fetch.
  /// The predicate compiled over rows' values: not tried yet (nil), or the closure (nil inside
  /// when the predicate has a shape that does not compile).
  private var compiled: (((RowValues) -> Bool?)?)?
  private let hasPredicate: Bool
  let core: ContextCore
  private var scratch: [ObjectIdentifier: ManagedObject] = [:]
  private let predicate: Predicate<Entity>?

  init(core: ContextCore, predicate: Predicate<Entity>?) {
    self.core = core
    self.predicate = predicate
    hasPredicate = predicate != nil
  }

  mutating func matches(_ row: SourceRow) throws(PersistenceError) -> Bool {
    guard hasPredicate else { return true }
    if case .some(.some(let compiled)) = compiled, let result = compiled(row.values) {
      return result
    }
    return try judge(row)
  }

  /// The first row, and any row a compiled predicate cannot judge: on a scratch object.
  private mutating func judge(_ row: SourceRow) throws(PersistenceError) -> Bool {
    guard let predicate else { return true }
    let key = ObjectIdentifier(row.entity)
    let probe =
      scratch[key] ?? row.entity.init(ObjectRegistration(core: core, id: row.id, isInserted: false))
    scratch[key] = probe
    probe.id = row.id
    probe.load(row: row.values, version: row.version)
    probe.lifecycle = .scratch
    if compiled == nil {
      compiled = .some(PredicateCompiler(probe: probe).compile(predicate))
      if let compiled, let compiled, let result = compiled(row.values) { return result }
    }
    do {
      return try predicate.evaluate(probe as! Entity)
    } catch {
      throw .predicateFailed(String(describing: error))
    }
  }
}
