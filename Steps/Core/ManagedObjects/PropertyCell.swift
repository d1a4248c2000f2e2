import Foundation

/// One property of one object, as the core's operations see it: loading a row, saving,
/// validating, keeping inverse relationships in step. A view, made on demand: the value lives in
/// the object, the property's name and place in the entity's layout. Use it with the owning
/// context's lock held.
struct PropertyCell {
  let object: ManagedObject
  let property: PropertyLayout

  var name: String { property.name }

  var isRelationship: Bool { property.isRelationship }

  /// The value to save, or nil when a required attribute was never set.
  var stored: StoredValue? { property.stored(in: object) }

  /// Replaces the value with one read from the store (nil: unset).
  func load(_ value: StoredValue?) {
    property.load(value, into: object)
  }

  var isMissingRequiredValue: Bool { property.isMissingRequiredValue(in: object) }

  /// True when `value` can be stored in this property (attributes of the same type only).
  func accepts(_ value: any AttributeValue) -> Bool { property.storage.accepts(value) }

  /// `value` as this property stores it, as if it were set and saved; nil if not accepted.
  func stored(from value: any AttributeValue) -> StoredValue? {
    property.storage.stored(from: value)
  }

  /// The property's value type, for error messages.
  var valueTypeName: String { property.storage.valueTypeName }

  // MARK: - Relationships only

  var isToMany: Bool { (property.storage as? any RelationshipStorage.Type)?.isToMany ?? false }

  var inverseName: String? { property.inverseName(in: object) }

  /// True when the inverse, on the target entity, is a to-many relationship.
  var inverseIsToMany: Bool {
    guard let inverseName, let storage = property.storage as? any RelationshipStorage.Type,
      let inverse = EntityLayout.of(storage.target, core: object.core).property(named: inverseName)
    else { return false }
    return (inverse.storage as? any RelationshipStorage.Type)?.isToMany ?? false
  }

  var targets: Set<ManagedObjectID> {
    get { property.targets(in: object) }
    nonmutating set { property.setTargets(newValue, in: object) }
  }

  /// Rewrites the targets' IDs that `map` replaces.
  func remap(_ map: [ManagedObjectID: ManagedObjectID]) {
    guard isRelationship else { return }
    targets = Set(targets.map { map[$0] ?? $0 })
  }
}

/// An object's properties in declaration order, as cells.
struct PropertyCells: RandomAccessCollection {
  let object: ManagedObject

  var startIndex: Int { 0 }
  var endIndex: Int { object.layout.properties.count }

  subscript(position: Int) -> PropertyCell {
    PropertyCell(object: object, property: object.layout.properties[position])
  }
}

/// An object's properties by name, as cells.
struct PropertyCellsByName {
  let object: ManagedObject

  subscript(name: String) -> PropertyCell? {
    object.layout.property(named: name).map { PropertyCell(object: object, property: $0) }
  }
}
