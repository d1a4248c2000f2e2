import Foundation

// Batch requests (WWDC20, "Core Data: Sundries and maxims"): they go straight to the store. No
// object is made, nothing is validated, and no context learns of the change unless it merges
// the result's `changes` with `ManagedObjectContext.mergeChanges(fromRemoteContextSave:into:)`.
// They take attributes only, and run inside the executing context's `perform` like any other use
// of it.

/// What a batch request reports back.
public enum BatchResultType: Sendable, Hashable {
  /// Nothing but success.
  case statusOnly
  /// How many rows were affected.
  case count
  /// The affected rows' IDs, and the change as a save notification for merging.
  case objectIDs
}

/// The outcome of a batch request, as much as its ``BatchResultType`` asked for.
public struct BatchResult: Sendable {
  /// The number of rows affected (for `.count` and `.objectIDs`).
  public let count: Int?
  /// The affected rows (for `.objectIDs`).
  public let objectIDs: [ManagedObjectID]?
  /// The change, ready for `mergeChanges(fromRemoteContextSave:into:)` (for `.objectIDs`).
  public let changes: ContextDidSave?

  init(
    _ type: BatchResultType, inserted: [ManagedObjectID] = [], updated: [ManagedObjectID] = [],
    deleted: [ManagedObjectID] = []
  ) {
    let all = inserted + updated + deleted
    count = type == .statusOnly ? nil : all.count
    objectIDs = type == .objectIDs ? all : nil
    changes =
      type == .objectIDs
      ? ContextDidSave(
        insertedObjectIDs: Set(inserted), updatedObjectIDs: Set(updated),
        deletedObjectIDs: Set(deleted))
      : nil
  }
}

/// Inserts rows of `Entity` without making objects, like `NSBatchInsertRequest`.
///
/// Rows come from dictionaries (attribute name → value), or from a handler called once per row
/// that fills a dictionary or a scratch object and returns `true` when there is nothing more to
/// insert (the row of that last call is not inserted). Unset attributes take their defaults.
/// With uniqueness constraints, an existing key is updated under
/// ``MergePolicy/mergeByPropertyObjectTrump`` (upsert) and is an error under ``MergePolicy/error``.
public struct BatchInsertRequest<Entity: ManagedObject> {
  enum Source {
    case objects([[String: any AttributeValue]])
    case dictionaryHandler((inout [String: any AttributeValue]) -> Bool)
    case objectHandler((Entity) -> Bool)
  }

  let source: Source
  public var resultType: BatchResultType = .statusOnly

  public init(objects: [[String: any AttributeValue]]) {
    source = .objects(objects)
  }

  public init(dictionaryHandler: @escaping (inout [String: any AttributeValue]) -> Bool) {
    source = .dictionaryHandler(dictionaryHandler)
  }

  /// The handler gets a scratch object: set its attributes; it is never inserted itself, and it
  /// must not be kept.
  public init(managedObjectHandler: @escaping (Entity) -> Bool) {
    source = .objectHandler(managedObjectHandler)
  }
}

/// Sets attributes on every row of `Entity` that matches, like `NSBatchUpdateRequest`.
public struct BatchUpdateRequest<Entity: ManagedObject> {
  /// Which rows to update, judged on the store's values; nil updates all.
  public var predicate: Predicate<Entity>?
  /// Attribute name → new value.
  public var propertiesToUpdate: [String: any AttributeValue]
  public var resultType: BatchResultType = .statusOnly

  public init(
    predicate: Predicate<Entity>? = nil, propertiesToUpdate: [String: any AttributeValue]
  ) {
    self.predicate = predicate
    self.propertiesToUpdate = propertiesToUpdate
  }
}

/// Deletes the rows a fetch request selects, like `NSBatchDeleteRequest`: its predicate, sort
/// order, offset and limit all apply. Relationships pointing at deleted rows are left dangling
/// in the store and resolve to nothing; a context that merges the result's `changes` deletes its
/// copies of the rows, and their delete rules (nullify) run there, as after `delete(_:)`.
public struct BatchDeleteRequest<Entity: ManagedObject> {
  public var fetchRequest: FetchRequest<Entity>
  public var resultType: BatchResultType = .statusOnly

  public init(fetchRequest: FetchRequest<Entity>) {
    self.fetchRequest = fetchRequest
  }
}

extension ContextDidSave {
  /// A change made outside any context, such as a batch request's, for merging into contexts.
  public init(
    insertedObjectIDs: Set<ManagedObjectID>, updatedObjectIDs: Set<ManagedObjectID>,
    deletedObjectIDs: Set<ManagedObjectID>
  ) {
    self.init(
      contextName: nil, contextID: ContextID(rawValue: 0), insertedObjectIDs: insertedObjectIDs,
      updatedObjectIDs: updatedObjectIDs, deletedObjectIDs: deletedObjectIDs,
      reachedStore: true, permanentIDs: [:])
  }
}

extension ContextCore {
  /// A row from named attribute values: the defaults, with each value checked and converted by
  /// the scratch object's property of that name.
  private func rowValues(
    _ values: [String: any AttributeValue], scratch: ManagedObject,
    defaults: [String: StoredValue]
  ) throws(PersistenceError) -> [String: StoredValue] {
    var row = defaults
    for (name, value) in values {
      row[name] = try cell(name, of: scratch, accepting: value).stored(from: value)
    }
    return row
  }

  private func cell(
    _ name: String, of scratch: ManagedObject, accepting value: any AttributeValue
  ) throws(PersistenceError) -> PropertyCell {
    guard let cell = scratch.cellsByName[name], !cell.isRelationship else {
      throw .unknownProperty(entity: scratch.entityName, property: name)
    }
    guard cell.accepts(value) else {
      throw .typeMismatch(entity: scratch.entityName, property: name, expected: cell.valueTypeName)
    }
    return cell
  }

  private func scratchObject<Entity: ManagedObject>(_ entity: Entity.Type) -> Entity {
    let id = ManagedObjectID(
      storeIdentifier: store.identifier, entityName: EntityNames.name(of: entity),
      storage: .temporary(context: ContextID(rawValue: 0), serial: 0))
    let object = Entity(ObjectRegistration(core: self, id: id, isInserted: false))
    object.lifecycle = .scratch
    return object
  }

  func execute<Entity: ManagedObject>(
    _ request: BatchInsertRequest<Entity>
  ) throws(PersistenceError) -> BatchResult {
    try access(.execute, entity: EntityNames.name(of: Entity.self)) {
      (state) throws(PersistenceError) -> BatchResult in
      let scratch = scratchObject(Entity.self)
      // Every row starts from the defaults the scratch object was made with.
      let defaults = scratch.storedValues()
      var rows: [[String: StoredValue]] = []
      // The handlers run in the caller's scope, not `internally`: a handler is the app's code,
      // and each other object of the context it uses is a use of its own, checked as such.
      switch request.source {
      case .objects(let objects):
        for values in objects {
          rows.append(try rowValues(values, scratch: scratch, defaults: defaults))
        }
      case .dictionaryHandler(let handler):
        while true {
          var values: [String: any AttributeValue] = [:]
          if handler(&values) { break }
          rows.append(try rowValues(values, scratch: scratch, defaults: defaults))
        }
      case .objectHandler(let handler):
        while true {
          scratch.load(row: defaults, version: 0)
          if PerformScope.filling(scratch, { handler(scratch) }) { break }
          rows.append(scratch.storedValues())
        }
      }
      let (inserted, updated) = try store.batchInsert(
        rows, entity: Entity.self, policy: state.mergePolicy)
      return BatchResult(request.resultType, inserted: inserted, updated: updated)
    }
  }

  /// The store's rows of `Entity` that `predicate` selects, as scratch objects in store order.
  private func storeMatches<Entity: ManagedObject>(
    _ predicate: Predicate<Entity>?
  ) throws(PersistenceError) -> [(row: Int64, object: Entity)] {
    try internally { () throws(PersistenceError) in
      var matches: [(Int64, Entity)] = []
      for (row, value) in store.rows(of: Entity.self) {
        let object = value.entity.init(
          ObjectRegistration(
            core: self, id: permanentID(row: row, entity: value.entity), isInserted: false))
        object.lifecycle = .scratch
        object.load(row: value.values, version: value.version)
        let entity = object as! Entity
        do {
          if try predicate?.evaluate(entity) ?? true { matches.append((row, entity)) }
        } catch {
          throw .predicateFailed(String(describing: error))
        }
      }
      return matches
    }
  }

  func execute<Entity: ManagedObject>(
    _ request: BatchUpdateRequest<Entity>
  ) throws(PersistenceError) -> BatchResult {
    try access(.execute, entity: EntityNames.name(of: Entity.self)) {
      (_) throws(PersistenceError) -> BatchResult in
      let scratch = scratchObject(Entity.self)
      var values: [String: StoredValue] = [:]
      for (name, value) in request.propertiesToUpdate {
        _ = try cell(name, of: scratch, accepting: value)
        values[name] = .attribute(value)
      }
      let rows = try storeMatches(request.predicate).map(\.row)
      return BatchResult(request.resultType, updated: store.batchUpdate(rows, values: values))
    }
  }

  func execute<Entity: ManagedObject>(
    _ request: BatchDeleteRequest<Entity>
  ) throws(PersistenceError) -> BatchResult {
    try access(.execute, entity: EntityNames.name(of: Entity.self)) {
      (_) throws(PersistenceError) -> BatchResult in
      let fetch = request.fetchRequest
      var matches = try storeMatches(fetch.predicate)
      if !fetch.sortDescriptors.isEmpty {
        try internally { () throws(PersistenceError) in
          matches.sort { fetch.sortDescriptors.compare($0.object, $1.object) == .orderedAscending }
        }
      }
      let window = matches.dropFirst(max(fetch.fetchOffset, 0))
      let selected = fetch.fetchLimit > 0 ? Array(window.prefix(fetch.fetchLimit)) : Array(window)
      return BatchResult(request.resultType, deleted: store.batchDelete(selected.map(\.row)))
    }
  }
}

extension Array {
  /// Compares two values by these sort descriptors, the first that tells them apart deciding.
  fileprivate func compare<Compared>(_ lhs: Compared, _ rhs: Compared) -> ComparisonResult
  where Element == SortDescriptor<Compared> {
    for descriptor in self {
      let result = descriptor.compare(lhs, rhs)
      if result != .orderedSame { return result }
    }
    return .orderedSame
  }
}
