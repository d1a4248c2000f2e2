import Foundation

/// The base class of every entity, like `NSManagedObject`: not Sendable, and confined to the
/// context it was inserted into or fetched by.
///
/// Subclass it per entity and declare properties with ``Attribute`` and ``Relationship``. Create
/// new objects with ``init(context:)``. Only ``objectID`` and ``managedObjectContext`` may be used
/// from anywhere; everything else belongs inside the context's `perform`.
open class ManagedObject: Hashable, CustomStringConvertible {
  enum Lifecycle: Equatable {
    case inserted
    case persisted
    case deleted(wasInserted: Bool)
    case detached(DetachReason)
    /// A scratch object a batch insert's handler fills: never registered, never saved.
    case scratch
  }

  enum DetachReason: String {
    case reset = "its context was reset"
    case deletionSaved = "its deletion was saved"
    case insertionDiscarded = "its insertion was rolled back or deleted"
    case deletedInStore = "it was deleted in the store by another context"
    case goneFromParent = "its parent context no longer has it"
    case removedByMerge = "a merge removed it: its row was deleted in the store"
  }

  let core: ContextCore
  /// Where the entity's properties are: shared by every object of the class.
  let layout: EntityLayout
  // Everything below, and the properties' values, are guarded by `core.state`'s lock.
  var id: ManagedObjectID
  var lifecycle: Lifecycle
  /// The row as last read from or written to the store.
  var committed: [String: StoredValue] = [:]
  /// The row version `committed` was read at, for optimistic locking.
  var version = 0
  /// Set while the object is a fault: its values load, with its batch's, from the parent context
  /// or the store when it fires (`ContextCore.fireFault`).
  var fault: FaultBatch?
  /// Set on a fetch's scratch object while the fetch compiles its predicate (CompiledPredicate).
  var compiler: PredicateCompiler?

  /// Used by the core to create objects; call ``init(context:)`` instead.
  public required init(_ registration: ObjectRegistration) {
    core = registration.core
    layout = registration.layout ?? EntityLayout.of(Self.self, core: registration.core)
    id = registration.id
    lifecycle = registration.isInserted ? .inserted : .persisted
  }

  /// Creates an object and inserts it into `context`, like Core Data's `init(context:)`.
  /// Call it inside the context's `perform`.
  public convenience init(context: ManagedObjectContext) {
    self.init(context.core.registrationForInsert(of: Self.self))
    context.core.didInsert(self)
  }

  /// The entity's name; by default the class name.
  open class var entityName: String { String(describing: self) }

  /// Sets of attribute names whose values must be unique among the entity's rows, like the
  /// constraints of a Core Data model. An insert whose key exists is a conflict: an error under
  /// ``MergePolicy/error``, an update of the existing row (upsert) under
  /// ``MergePolicy/mergeByPropertyObjectTrump``.
  open class var uniquenessConstraints: [[String]] { [] }

  /// The object's ID. Thread-safe: read it anywhere, send it anywhere.
  public var objectID: ManagedObjectID {
    core.state.withLock { _ in id }
  }

  /// The context the object belongs to; nil once it was invalidated (reset, or deletion saved).
  /// Thread-safe, so that `object.managedObjectContext?.perform { … }` can be written anywhere.
  public var managedObjectContext: ManagedObjectContext? {
    core.state.withLock { _ in
      if case .detached = lifecycle { return nil }
      return core.owner
    }
  }

  // The state flags below are checked like any access, but asking does not fire a fault: Apple's
  // Core Data Performance guide ("Faulting Behavior") lists isInserted, isUpdated, isDeleted and
  // isFault among what is safe to ask a fault; hasChanges is what the first three add up to.

  /// True while the object is inserted and not yet saved.
  public var isInserted: Bool {
    core.access(.inspectChanges, object: self, firingFault: false) { _ in lifecycle == .inserted }
  }

  /// True while the object's deletion is pending.
  public var isDeleted: Bool {
    core.access(.inspectChanges, object: self, firingFault: false) { _ in
      if case .deleted = lifecycle { return true }
      return false
    }
  }

  /// True while a saved object has unsaved changes, "updated since its managed object context was
  /// last saved" (Apple): any property was set, as ``ManagedObjectContext/updatedObjects`` counts.
  public var isUpdated: Bool {
    core.access(.inspectChanges, object: self, firingFault: false) { state in
      lifecycle == .persisted && state.touched.contains(id)
    }
  }

  /// True until the object's values are loaded: objects fetched with a `fetchBatchSize` load a
  /// batch at a time, on first use of any of them.
  public var isFault: Bool {
    core.access(.inspectChanges, object: self, firingFault: false) { _ in fault != nil }
  }

  /// True when the object is inserted, deleted, or updated: any property was set since the last
  /// save, even to the value it had. Core Data's flag works the same way; ``changedValues()``
  /// tells which values differ.
  public var hasChanges: Bool {
    core.access(.inspectChanges, object: self, firingFault: false) { state in
      lifecycle == .persisted ? state.touched.contains(id) : hasPendingChanges
    }
  }

  /// The properties whose values differ from the last fetched or saved ones, by name; a property
  /// set to the value it had is not among them. Relationships are reported as object IDs
  /// (`ManagedObjectID?` or `Set<ManagedObjectID>`).
  public func changedValues() -> [String: any Sendable] {
    core.access(.inspectChanges, object: self) { _ in
      changedStoredValues().mapValues(\.publicValue)
    }
  }

  public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(ObjectIdentifier(self))
  }

  public var description: String {
    "<\(EntityNames.name(of: Self.self)) \(objectID)>"
  }

  // MARK: - Used by the core, with the context's lock held

  /// The entity name without recomputing it: the ID carries it (lock held).
  var entityName: String { id.entityName }

  var isDetached: Bool {
    if case .detached = lifecycle { return true }
    return false
  }

  /// Whether a save has something to do with the object, given that the context counts it as
  /// written (it is in `touched`): inserted, deleted, or updated, since any set marks an object
  /// updated, as in Core Data.
  var hasPendingChanges: Bool {
    switch lifecycle {
    case .inserted, .deleted, .persisted: true
    case .detached, .scratch: false
    }
  }

  var hasRelationships: Bool { layout.hasRelationships }

  /// The object's properties, as the core's operations use them.
  var cells: PropertyCells { PropertyCells(object: self) }

  var cellsByName: PropertyCellsByName { PropertyCellsByName(object: self) }

  func changedStoredValues() -> [String: StoredValue] {
    var changes: [String: StoredValue] = [:]
    for property in layout.properties {
      guard let value = property.stored(in: self) else { continue }
      if lifecycle == .inserted || committed[property.name] != value {
        changes[property.name] = value
      }
    }
    return changes
  }

  func storedValues() -> [String: StoredValue] {
    var values: [String: StoredValue] = [:]
    values.reserveCapacity(layout.properties.count)
    for property in layout.properties {
      if let value = property.stored(in: self) { values[property.name] = value }
    }
    return values
  }

  /// Replaces every property with `values` and makes them the committed state.
  func load(row values: [String: StoredValue], version: Int) {
    fault = nil
    for property in layout.properties { property.load(values[property.name], into: self) }
    committed = values
    self.version = version
  }

  /// Counts a set as a change to save, as Core Data does (lock held), and keeps the object alive
  /// until it is saved or rolled back (`Registry`). Inserted objects are saved whole anyway, and
  /// kept already; only registered, persisted ones need remembering.
  func markWritten(in state: ContextState) {
    guard lifecycle == .persisted else { return }
    state.touched.insert(id)
    state.registered.retain(self)
  }

  // MARK: - Property access, from the wrappers

  func readAttribute<Entity: ManagedObject, Value>(
    _ keyPath: ReferenceWritableKeyPath<Entity, Attribute<Value>>
  ) -> Value {
    let object = unsafeDowncast(self, to: Entity.self)
    return core.access(.read, object: self, property: property(keyPath).name) { _ in
      guard let value = object[keyPath: keyPath].value else {
        preconditionFailure(
          "\(entityName).\(property(keyPath).name) was read before it was set. Give the "
            + "attribute a default value, make it optional, or set it right after inserting "
            + "the object.")
      }
      return value
    }
  }

  func writeAttribute<Entity: ManagedObject, Value>(
    _ value: Value, _ keyPath: ReferenceWritableKeyPath<Entity, Attribute<Value>>
  ) {
    let object = unsafeDowncast(self, to: Entity.self)
    core.access(.write, object: self, property: property(keyPath).name) { state in
      guard !isDetached else { return }
      object[keyPath: keyPath].value = value
      markWritten(in: state)
    }
  }

  func readRelationship<Entity: ManagedObject, Value>(
    _ keyPath: ReferenceWritableKeyPath<Entity, Relationship<Value>>
  ) -> [ManagedObject] {
    let object = unsafeDowncast(self, to: Entity.self)
    return core.access(.read, object: self, property: property(keyPath).name) { state in
      let targets = object[keyPath: keyPath].targets
      // A fetch's row probe stands for a row in the store, so its relationships lead to rows
      // too, as in the store's join: not to this context's objects and their unsaved values.
      if lifecycle == .scratch { return targets.compactMap(core.probeTarget) }
      return targets.compactMap { core.object(for: $0, in: state) }
    }
  }

  func writeRelationship<Entity: ManagedObject, Value>(
    _ targets: [ManagedObject], _ keyPath: ReferenceWritableKeyPath<Entity, Relationship<Value>>
  ) {
    core.relate(self, through: property(keyPath), to: targets)
  }
}

/// What the core passes to ``ManagedObject/init(_:)``; only the core can make one.
public struct ObjectRegistration {
  let core: ContextCore
  let id: ManagedObjectID
  let isInserted: Bool
  /// The entity's layout when the caller has it at hand; looked up otherwise.
  var layout: EntityLayout? = nil
}

/// `entityName` is a class property that subclasses may override, and `String(describing:)` of a
/// type is slow; the core asks for names per object, so it remembers them per class.
enum EntityNames {
  private static let cache = Locked<[ObjectIdentifier: String]>([:])

  static func name(of entity: ManagedObject.Type) -> String {
    let key = ObjectIdentifier(entity)
    if let name = cache.withLock({ $0[key] }) { return name }
    let name = entity.entityName
    cache.withLock { $0[key] = name }
    return name
  }
}

/// The faults that fire together (one batch of a batched fetch, or a single fault), shared by
/// them: each member's row as it was when the fault was made, which names the member and keeps
/// the values it last saw. Firing reads the rows as they are then.
final class FaultBatch {
  var rows: [SourceRow]

  init(rows: [SourceRow] = []) {
    self.rows = rows
  }
}

/// Not Sendable, as `NSManagedObject` is `NS_SWIFT_NONSENDABLE` in the iOS 26 SDK: an object
/// belongs to its context's queue. Saying so explicitly makes a subclass that declares `Sendable`
/// a diagnosed mistake, also when the subclass is isolated to a global actor (SE-0434).
@available(
  *, unavailable, message: "a managed object is confined to its context; pass its objectID"
)
extension ManagedObject: Sendable {}
