import Foundation

// How an entity is declared
// =========================
//
//     final class CoreDataEntity: ManagedObject {
//       @Attribute var name: String          // required: saving while unset is a validation error
//       @Attribute var score: Int = 0        // with a default
//       @Attribute var note: String?         // optional: nil by default
//       @Relationship(inverse: "entities") var owner: Owner?
//     }
//
// This reads like an `@NSManaged` class, and works the same on Linux and macOS. The wrappers use
// the enclosing-instance subscript (the `_enclosingInstance` form of SE-0258's static subscript),
// so every get and set goes through the object and its context: that is where the confinement
// checker and the context's lock sit. The wrapper itself only holds a cell with the value; the
// cell's name comes from the property's name, read once with `Mirror` when the object is made.

/// A persistent attribute of a ``ManagedObject`` subclass.
@propertyWrapper
public struct Attribute<Value: AttributeValue> {
  let cell: AttributeCell<Value>

  /// An attribute with a default value, used until the attribute is set.
  public init(wrappedValue: Value) {
    cell = AttributeCell(defaultValue: wrappedValue)
  }

  /// An attribute without a default: nil for an optional type; for a non-optional type it must be
  /// set before the object is saved.
  public init() {
    cell = AttributeCell(
      defaultValue: (Value.self as? any OptionalAttributeValue.Type)?.nilValue as? Value)
  }

  @available(*, unavailable, message: "@Attribute can only be used in a ManagedObject subclass")
  public var wrappedValue: Value {
    get { fatalError("unreachable") }
    set { fatalError("unreachable") }
  }

  public static subscript<Entity: ManagedObject>(
    _enclosingInstance object: Entity,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Entity, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Entity, Attribute<Value>>
  ) -> Value {
    get { object.readAttribute(object[keyPath: storageKeyPath].cell) }
    set { object.writeAttribute(newValue, to: object[keyPath: storageKeyPath].cell) }
  }
}

/// The value types a ``Relationship`` can have: `Target?` for to-one, `Set<Target>` for to-many.
public protocol RelationshipValue {
  static var _isToMany: Bool { get }
  var _objects: [ManagedObject] { get }
  init(_objects: [ManagedObject])
}

extension Optional: RelationshipValue where Wrapped: ManagedObject {
  public static var _isToMany: Bool { false }
  public var _objects: [ManagedObject] { map { [$0] } ?? [] }
  public init(_objects objects: [ManagedObject]) { self = objects.first.map { $0 as! Wrapped } }
}

extension Set: RelationshipValue where Element: ManagedObject {
  public static var _isToMany: Bool { true }
  public var _objects: [ManagedObject] { Array(self) }
  public init(_objects objects: [ManagedObject]) { self = Set(objects.map { $0 as! Element }) }
}

/// A relationship of a ``ManagedObject`` subclass, to-one (`Target?`) or to-many (`Set<Target>`).
///
/// Name the inverse relationship on the target entity and the core keeps both sides in step, as
/// Core Data does. Deleting an object nullifies the relationships that point to it.
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
  let cell: RelationshipCell

  /// - Parameter inverse: the name of the inverse relationship on the target entity, if any.
  public init(inverse: String?) {
    cell = RelationshipCell(isToMany: Value._isToMany, inverseName: inverse)
  }

  @available(*, unavailable, message: "@Relationship can only be used in a ManagedObject subclass")
  public var wrappedValue: Value {
    get { fatalError("unreachable") }
    set { fatalError("unreachable") }
  }

  public static subscript<Entity: ManagedObject>(
    _enclosingInstance object: Entity,
    wrapped wrappedKeyPath: ReferenceWritableKeyPath<Entity, Value>,
    storage storageKeyPath: ReferenceWritableKeyPath<Entity, Relationship<Value>>
  ) -> Value {
    get { Value(_objects: object.readRelationship(object[keyPath: storageKeyPath].cell)) }
    set { object.writeRelationship(newValue._objects, to: object[keyPath: storageKeyPath].cell) }
  }
}

/// Lets `ManagedObject` find its cells with `Mirror`.
protocol PropertyCellProvider {
  var propertyCell: PropertyCell { get }
}

extension Attribute: PropertyCellProvider {
  var propertyCell: PropertyCell { cell }
}

extension Relationship: PropertyCellProvider {
  var propertyCell: PropertyCell { cell }
}

// MARK: - Cells

/// The storage of one property of one object. Cells are read and written only while the owning
/// context's lock is held; `name` is set once, before the object is visible to anyone.
class PropertyCell {
  var name = ""

  /// The value to save, or nil when a required attribute was never set.
  var stored: StoredValue? { nil }

  /// Replaces the value with one read from the store (nil: unset).
  func load(_ value: StoredValue?) {}

  var isMissingRequiredValue: Bool { false }

  /// True when `value` can be stored in this property (attributes of the same type only).
  func accepts(_ value: any AttributeValue) -> Bool { false }

  /// The property's value type, for error messages.
  var valueTypeName: String { "relationship" }

  func remap(_ map: [ManagedObjectID: ManagedObjectID]) {}
}

final class AttributeCell<Value: AttributeValue>: PropertyCell {
  let defaultValue: Value?
  var value: Value?

  init(defaultValue: Value?) {
    self.defaultValue = defaultValue
  }

  var current: Value? { value ?? defaultValue }

  override var stored: StoredValue? { current.map { .attribute($0) } }

  override func load(_ stored: StoredValue?) {
    if case .attribute(let raw)? = stored, let typed = raw as? Value {
      value = typed
    } else {
      value = nil
    }
  }

  override var isMissingRequiredValue: Bool { current == nil }

  override func accepts(_ value: any AttributeValue) -> Bool { value is Value }

  override var valueTypeName: String { String(describing: Value.self) }
}

final class RelationshipCell: PropertyCell {
  let isToMany: Bool
  let inverseName: String?
  var targets: Set<ManagedObjectID> = []

  init(isToMany: Bool, inverseName: String?) {
    self.isToMany = isToMany
    self.inverseName = inverseName
  }

  override var stored: StoredValue? {
    isToMany ? .toMany(targets) : .toOne(targets.first)
  }

  override func load(_ stored: StoredValue?) {
    switch stored {
    case .toOne(let id?): targets = [id]
    case .toMany(let ids): targets = ids
    default: targets = []
    }
  }

  override func remap(_ map: [ManagedObjectID: ManagedObjectID]) {
    targets = Set(targets.map { map[$0] ?? $0 })
  }
}
