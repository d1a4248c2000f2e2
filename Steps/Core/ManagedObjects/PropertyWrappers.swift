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
// checker and the context's lock sit. The wrapper holds the property's value inline in the
// object; the core finds it through the entity's layout (EntityLayout.swift).

/// A persistent attribute of a ``ManagedObject`` subclass.
@propertyWrapper
public struct Attribute<Value: AttributeValue> {
  /// The value; nil while a required attribute is unset. A default is the first value: the
  /// object keeps nothing else.
  var value: Value?
  /// Where the core finds this wrapper in its object (EntityLayout).
  let stamp = PropertyStamp.next()

  /// An attribute with a default value: its value until it is set.
  public init(wrappedValue: Value) {
    value = wrappedValue
  }

  /// An attribute without a default: nil for an optional type; for a non-optional type it must be
  /// set before the object is saved.
  public init() {
    value = (Value.self as? any OptionalAttributeValue.Type)?.nilValue as? Value
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
    get {
      // A fetch compiling its predicate asks which attribute this key path is.
      object.compiler?.saw(wrappedKeyPath, attribute: object.property(storageKeyPath).name)
      return object.readAttribute(storageKeyPath)
    }
    set { object.writeAttribute(newValue, storageKeyPath) }
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

/// The entity class a relationship value holds, for the core.
protocol RelationshipTarget {
  static var target: ManagedObject.Type { get }
}

extension Optional: RelationshipTarget where Wrapped: ManagedObject {
  static var target: ManagedObject.Type { Wrapped.self }
}

extension Set: RelationshipTarget where Element: ManagedObject {
  static var target: ManagedObject.Type { Element.self }
}

/// A relationship of a ``ManagedObject`` subclass, to-one (`Target?`) or to-many (`Set<Target>`).
///
/// Name the inverse relationship on the target entity and the core keeps both sides in step, as
/// Core Data does. Deleting an object nullifies the relationships that point to it.
@propertyWrapper
public struct Relationship<Value: RelationshipValue> {
  var targets: Set<ManagedObjectID> = []
  let inverseName: String?
  /// Where the core finds this wrapper in its object (EntityLayout).
  let stamp = PropertyStamp.next()

  /// - Parameter inverse: the name of the inverse relationship on the target entity, if any.
  public init(inverse: String?) {
    inverseName = inverse
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
    get {
      object.compiler?.saw(wrappedKeyPath, attribute: nil)
      return Value(_objects: object.readRelationship(storageKeyPath))
    }
    set { object.writeRelationship(newValue._objects, storageKeyPath) }
  }
}

// MARK: - What the core does with a wrapper

/// A property's storage as the core sees it, whichever its value type. Used only with the
/// owning context's lock held.
protocol PropertyStorage {
  /// Drawn when the wrapper is made, unique in the process (``PropertyStamp``).
  var stamp: UInt64 { get }
  /// Where ``stamp`` sits inside the wrapper.
  static var stampOffset: Int { get }
  /// The value to save, or nil when a required attribute was never set.
  var stored: StoredValue? { get }
  /// Replaces the value with one read from the store (nil: unset, defaults included).
  mutating func load(_ value: StoredValue?)
  var isMissingRequiredValue: Bool { get }
  /// True when `value` can be stored in this property (attributes of the same type only).
  static func accepts(_ value: any AttributeValue) -> Bool
  /// `value` as this property stores it, as if it were set and saved; nil if not accepted.
  static func stored(from value: any AttributeValue) -> StoredValue?
  /// The property's value type, for error messages.
  static var valueTypeName: String { get }
}

protocol RelationshipStorage: PropertyStorage {
  static var isToMany: Bool { get }
  /// The entity class at the other end.
  static var target: ManagedObject.Type { get }
  var targets: Set<ManagedObjectID> { get set }
  var inverseName: String? { get }
}

/// Where a wrapper's stamp sits inside it: a key path through the concrete type names the stored
/// property (through the protocol it would name the requirement, which has no offset).
private func offset<Wrapper>(of stamp: KeyPath<Wrapper, UInt64>) -> Int {
  guard let offset = MemoryLayout<Wrapper>.offset(of: stamp) else {
    preconditionFailure("\(Wrapper.self).stamp is not a stored property")
  }
  return offset
}

extension PropertyStorage {
  /// The bytes the wrapper takes in its object.
  static var size: Int { MemoryLayout<Self>.size }
}

// Written out with `if let` and `case`: these run unspecialized, once per property of every
// object a save or a fetch handles, and each generic temporary costs a metadata lookup.
extension Attribute: PropertyStorage {
  static var stampOffset: Int { offset(of: \Self.stamp) }

  var stored: StoredValue? {
    if let value { return .attribute(value) }
    return nil
  }

  mutating func load(_ stored: StoredValue?) {
    if case .attribute(let raw)? = stored, let typed = raw as? Value {
      value = typed
    } else {
      value = nil
    }
  }

  var isMissingRequiredValue: Bool {
    if case .none = value { return true }
    return false
  }

  static func accepts(_ value: any AttributeValue) -> Bool { value is Value }

  static func stored(from value: any AttributeValue) -> StoredValue? {
    (value as? Value).map { .attribute($0) }
  }

  static var valueTypeName: String { String(describing: Value.self) }
}

extension Relationship: RelationshipStorage {
  static var stampOffset: Int { offset(of: \Self.stamp) }

  static var isToMany: Bool { Value._isToMany }

  static var target: ManagedObject.Type { (Value.self as! any RelationshipTarget.Type).target }

  var stored: StoredValue? {
    Self.isToMany ? .toMany(targets) : .toOne(targets.first)
  }

  mutating func load(_ stored: StoredValue?) {
    switch stored {
    case .toOne(let id?): targets = [id]
    case .toMany(let ids): targets = ids
    default: targets = []
    }
  }

  var isMissingRequiredValue: Bool { false }

  static func accepts(_ value: any AttributeValue) -> Bool { false }

  static func stored(from value: any AttributeValue) -> StoredValue? { nil }

  static var valueTypeName: String { "relationship" }
}
