@_spi(Reflection) import Swift

// Where an object keeps its values
// ================================
//
// A property wrapper is stored inline in its object, so an object's values live in the object
// itself: `@Attribute var value: Int = 0` is a stored `_value: Attribute<Int>`. The core needs
// to reach every property of any object (to load a row, to save, to validate), and it learns
// where they are once per class, not once per object: the runtime's field metadata gives each
// stored property's name, type and offset (the stdlib's `_forEachField`, the same metadata
// `Mirror` reads). An object then costs its allocation and its wrappers' initial values, nothing
// else.
//
// Invariant, for the raw pointers below: a `PropertyLayout` is only applied to an object of the
// class it was made for (or a subclass: fields keep their offsets), the field at its offset has
// its wrapper type, and the object's context lock is held, as for every access to an object's
// values.

/// The persistent properties of one entity class, in declaration order (superclass first).
/// Immutable once made, and shared by every object of the class on every thread. The cache's lock
/// takes no other lock.
final class EntityLayout {
  let properties: [PropertyLayout]
  private let indexByName: [String: Int]
  let hasRelationships: Bool

  private init(_ entity: ManagedObject.Type) {
    var properties: [PropertyLayout] = []
    // The options' members are `static var`s, which Swift 6 counts as shared mutable state, so
    // they are spelled by value: `.classType` (1 << 0) and `.ignoreUnknown` (1 << 1).
    let options = _EachFieldOptions(rawValue: 1 << 0 | 1 << 1)
    let complete = _forEachField(of: entity, options: options) {
      name, offset, type, _ in
      if let storage = type as? any PropertyStorage.Type {
        // A wrapper's backing storage is the property's name with a leading underscore.
        let label = String(cString: name)
        properties.append(
          PropertyLayout(
            name: label.hasPrefix("_") ? String(label.dropFirst()) : label, offset: offset,
            storage: storage))
      }
      return true
    }
    precondition(complete, "the Swift runtime could not list the fields of \(entity)")
    self.properties = properties
    indexByName = Dictionary(
      properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    hasRelationships = properties.contains(where: \.isRelationship)
  }

  private static let cache = Locked<[ObjectIdentifier: EntityLayout]>([:])

  /// The layout of `entity`, made on first use.
  static func of(_ entity: ManagedObject.Type) -> EntityLayout {
    let key = ObjectIdentifier(entity)
    if let layout = cache.withLock({ $0[key] }) { return layout }
    let layout = EntityLayout(entity)
    return cache.withLock { cache in
      if let existing = cache[key] { return existing }
      cache[key] = layout
      return layout
    }
  }

  func property(named name: String) -> PropertyLayout? {
    indexByName[name].map { properties[$0] }
  }

  /// The property whose wrapper sits at `offset` in the object.
  func property(atOffset offset: Int) -> PropertyLayout? {
    properties.first { $0.offset == offset }
  }
}

/// One persistent property of an entity class: its name, and where its wrapper sits.
struct PropertyLayout {
  let name: String
  let offset: Int
  let storage: any PropertyStorage.Type

  var isRelationship: Bool { storage is any RelationshipStorage.Type }

  /// The wrapper of this property in `object`.
  private func pointer<Storage: PropertyStorage>(
    in object: ManagedObject, as type: Storage.Type
  ) -> UnsafeMutablePointer<Storage> {
    Unmanaged.passUnretained(object).toOpaque().advanced(by: offset)
      .assumingMemoryBound(to: Storage.self)
  }

  func stored(in object: ManagedObject) -> StoredValue? {
    func read<Storage: PropertyStorage>(_ type: Storage.Type) -> StoredValue? {
      pointer(in: object, as: type).pointee.stored
    }
    return read(storage)
  }

  func load(_ value: StoredValue?, into object: ManagedObject) {
    func write<Storage: PropertyStorage>(_ type: Storage.Type) {
      pointer(in: object, as: type).pointee.load(value)
    }
    write(storage)
  }

  func isMissingRequiredValue(in object: ManagedObject) -> Bool {
    func read<Storage: PropertyStorage>(_ type: Storage.Type) -> Bool {
      pointer(in: object, as: type).pointee.isMissingRequiredValue
    }
    return read(storage)
  }

  /// The targets of a relationship in `object`.
  func targets(in object: ManagedObject) -> Set<ManagedObjectID> {
    func read<Storage: RelationshipStorage>(_ type: Storage.Type) -> Set<ManagedObjectID> {
      pointer(in: object, as: type).pointee.targets
    }
    return read(relationship)
  }

  func setTargets(_ targets: Set<ManagedObjectID>, in object: ManagedObject) {
    func write<Storage: RelationshipStorage>(_ type: Storage.Type) {
      pointer(in: object, as: type).pointee.targets = targets
    }
    write(relationship)
  }

  /// The inverse a relationship was declared with, in `object`.
  func inverseName(in object: ManagedObject) -> String? {
    func read<Storage: RelationshipStorage>(_ type: Storage.Type) -> String? {
      pointer(in: object, as: type).pointee.inverseName
    }
    return read(relationship)
  }

  private var relationship: any RelationshipStorage.Type {
    guard let relationship = storage as? any RelationshipStorage.Type else {
      preconditionFailure("\(name) is an attribute, not a relationship")
    }
    return relationship
  }
}

extension ManagedObject {
  /// The property whose wrapper `keyPath` names. Only needed where the name matters (messages,
  /// inverses): a key path to a stored property of a class projects the property in place, so
  /// the wrapper's address gives its offset, which the layout knows.
  func property<Entity: ManagedObject, Storage: PropertyStorage>(
    _ keyPath: ReferenceWritableKeyPath<Entity, Storage>
  ) -> PropertyLayout {
    let object = unsafeDowncast(self, to: Entity.self)
    let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    let offset = withUnsafeMutablePointer(to: &object[keyPath: keyPath]) {
      UnsafeRawPointer($0) - base
    }
    guard let property = layout.property(atOffset: offset) else {
      preconditionFailure("\(entityName) has no persistent property at \(keyPath)")
    }
    return property
  }
}
