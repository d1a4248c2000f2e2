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
  }

  let core: ContextCore
  // Everything below is guarded by `core.state`'s lock.
  var id: ManagedObjectID
  var lifecycle: Lifecycle
  /// The row as last read from or written to the store.
  var committed: [String: StoredValue] = [:]
  /// The row version `committed` was read at, for optimistic locking.
  var version = 0
  /// Set while the object is a fault: its values wait in the batch it was fetched in.
  var fault: FaultBatch?
  private(set) var cells: [PropertyCell] = []
  private(set) var cellsByName: [String: PropertyCell] = [:]
  /// Only objects with relationships hold other objects' IDs, which change on save.
  private(set) var hasRelationships = false

  /// Used by the core to create objects; call ``init(context:)`` instead.
  public required init(_ registration: ObjectRegistration) {
    core = registration.core
    id = registration.id
    lifecycle = registration.isInserted ? .inserted : .persisted
    var mirror: Mirror? = Mirror(reflecting: self)
    while let current = mirror, current.subjectType != ManagedObject.self {
      for child in current.children {
        guard let provider = child.value as? PropertyCellProvider, let label = child.label
        else { continue }
        let cell = provider.propertyCell
        cell.name = label.hasPrefix("_") ? String(label.dropFirst()) : label
        cells.append(cell)
        cellsByName[cell.name] = cell
        hasRelationships = hasRelationships || cell is RelationshipCell
      }
      mirror = current.superclassMirror
    }
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

  /// True while the object is inserted and not yet saved.
  public var isInserted: Bool {
    core.access(.inspectChanges, object: self) { _ in lifecycle == .inserted }
  }

  /// True while the object's deletion is pending.
  public var isDeleted: Bool {
    core.access(.inspectChanges, object: self) { _ in
      if case .deleted = lifecycle { return true }
      return false
    }
  }

  /// True until the object's values are loaded: objects fetched with a `fetchBatchSize` load a
  /// batch at a time, on first use of any of them.
  public var isFault: Bool {
    // Checked like any access, but asking does not load the values.
    core.access(.inspectChanges, object: self, firingFault: false) { _ in fault != nil }
  }

  /// True when the object is inserted, deleted, or has property values that differ from the store.
  public var hasChanges: Bool {
    core.access(.inspectChanges, object: self) { _ in hasPendingChanges }
  }

  /// The properties whose values differ from the store, by name. Relationships are reported as
  /// object IDs (`ManagedObjectID?` or `Set<ManagedObjectID>`).
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

  var hasPendingChanges: Bool {
    switch lifecycle {
    case .inserted, .deleted: true
    case .persisted: !changedStoredValues().isEmpty
    case .detached, .scratch: false
    }
  }

  func changedStoredValues() -> [String: StoredValue] {
    var changes: [String: StoredValue] = [:]
    for cell in cells {
      guard let value = cell.stored else { continue }
      if lifecycle == .inserted || committed[cell.name] != value {
        changes[cell.name] = value
      }
    }
    return changes
  }

  func storedValues() -> [String: StoredValue] {
    var values: [String: StoredValue] = [:]
    for cell in cells {
      if let value = cell.stored { values[cell.name] = value }
    }
    return values
  }

  /// Replaces every property with `values` and makes them the committed state.
  func load(row values: [String: StoredValue], version: Int) {
    fault = nil
    for cell in cells { cell.load(values[cell.name]) }
    committed = values
    self.version = version
  }

  // MARK: - Property access, from the wrappers

  func readAttribute<Value>(_ cell: AttributeCell<Value>) -> Value {
    core.access(.read, object: self, property: cell.name) { _ in
      guard let value = cell.current else {
        preconditionFailure(
          "\(entityName).\(cell.name) was read before it was set. Give the attribute a "
            + "default value, make it optional, or set it right after inserting the object.")
      }
      return value
    }
  }

  func writeAttribute<Value>(_ value: Value, to cell: AttributeCell<Value>) {
    core.access(.write, object: self, property: cell.name) { state in
      guard !isDetached else { return }
      cell.value = value
      if lifecycle != .scratch { state.touched.insert(id) }
    }
  }

  func readRelationship(_ cell: RelationshipCell) -> [ManagedObject] {
    core.access(.read, object: self, property: cell.name) { state in
      cell.targets.compactMap { core.object(for: $0, in: state) }
    }
  }

  func writeRelationship(_ targets: [ManagedObject], to cell: RelationshipCell) {
    core.relate(self, through: cell, to: targets)
  }
}

/// What the core passes to ``ManagedObject/init(_:)``; only the core can make one.
public struct ObjectRegistration {
  let core: ContextCore
  let id: ManagedObjectID
  let isInserted: Bool
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

/// The rows of one batch of a batched fetch, shared by the faults made from them.
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
