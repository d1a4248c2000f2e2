import Synchronization

// Where an object keeps its values
// ================================
//
// A property wrapper is stored inline in its object, so an object's values live in the object
// itself: `@Attribute var value: Int = 0` is a stored `_value: Attribute<Int>`. The core needs
// to reach every property of any object (to load a row, to save, to validate), and it learns
// where they are once per class, not once per object, with public API only (Xcode compiles
// against the standard library's public interface, where the runtime's field enumeration is
// not):
//
// 1. The core makes one object of the class, never registered anywhere: its prototype.
// 2. `Mirror` lists the prototype's stored properties, superclass first, with their names; each
//    wrapper among them carries a stamp no other wrapper in the process has (`PropertyStamp`).
// 3. The core reads the prototype's memory a word at a time until it has met every stamp: where
//    a stamp sits, less the stamp's place inside its wrapper, is where the wrapper sits.
//
// An object then costs its allocation, its wrappers' initial values and a stamp per property.
//
// Invariant, for the raw pointers below: a `PropertyLayout` is only applied to an object of the
// class it was made for (or a subclass: fields keep their offsets), the field at its offset has
// its wrapper type, and the object's context lock is held, as for every access to an object's
// values.

/// A number every property wrapper draws when it is made, unique in the process, so that the
/// core can find the wrapper in its object's memory (EntityLayout).
enum PropertyStamp {
  private static let drawn = Atomic<UInt64>(0)
  /// High bits no small count, pointer or flag word is likely to have, so that a stamp is not
  /// mistaken for another field's value; the low bits count.
  private static let pattern: UInt64 = 0xC0DE_DA7A_0000_0000

  static func next() -> UInt64 {
    pattern | drawn.add(1, ordering: .relaxed).newValue
  }
}

/// The stride of a value's dynamic type (an `Any` opens to it): the room its field takes, unless
/// the field is of an existential type, whose value's type may be smaller than the field.
private func stride<Value>(of value: Value) -> Int { MemoryLayout<Value>.stride }

/// An entity with one plain field, which starts where any subclass's fields can start: past
/// `ManagedObject`'s own.
private final class FieldsStart: ManagedObject {
  var first: UInt64 = 0
}

/// The persistent properties of one entity class, in declaration order (superclass first).
/// Immutable once made, and shared by every object of the class on every thread. The cache's lock
/// takes no other lock.
final class EntityLayout {
  let properties: [PropertyLayout]
  private let indexByName: [String: Int]
  let hasRelationships: Bool

  private init(_ properties: [PropertyLayout]) {
    self.properties = properties
    indexByName = Dictionary(
      properties.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
    hasRelationships = properties.contains(where: \.isRelationship)
  }

  /// Finds the properties of `entity` in a prototype made with `core`.
  private convenience init(_ entity: ManagedObject.Type, core: ContextCore) {
    let prototype = entity.init(
      ObjectRegistration(
        core: core,
        id: ManagedObjectID(
          key: .of(entity, in: core.store.identifier),
          storage: .temporary(context: core.id, serial: .max)),
        isInserted: false,
        // Not the layout it is helping to find, which does not exist yet.
        layout: EntityLayout([])))
    prototype.lifecycle = .scratch
    self.init(Self.properties(of: prototype))
  }

  /// The wrappers `Mirror` sees in `prototype`, placed by their stamps.
  private static func properties(of prototype: ManagedObject) -> [PropertyLayout] {
    var levels: [Mirror] = []
    var mirror: Mirror? = Mirror(reflecting: prototype)
    while let level = mirror {
      levels.append(level)
      mirror = level.superclassMirror
    }
    let fields = levels.reversed().flatMap(\.children)
    // ManagedObject itself has stored properties: none at all means a build without reflection
    // metadata, where the core cannot see any entity's properties.
    precondition(
      !fields.isEmpty,
      "Mirror lists no stored properties of \(type(of: prototype)): build with reflection "
        + "metadata (the default; Xcode: SWIFT_REFLECTION_METADATA_LEVEL = all)")
    var wanted: [(name: String, stamp: UInt64, storage: any PropertyStorage.Type)] = []
    // An upper bound of the object's size: its header, and per field at least an existential's
    // 40 bytes, and room for alignment.
    var bound = 16
    for field in fields {
      bound += max(stride(of: field.value), 40) + 16
      guard let wrapper = field.value as? any PropertyStorage, let label = field.label else {
        continue
      }
      // A wrapper's backing storage is the property's name with a leading underscore.
      let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
      wanted.append((name, wrapper.stamp, type(of: wrapper)))
    }
    let offsets = wrapperOffsets(
      wanted.map { ($0.stamp, $0.storage) }, in: prototype,
      from: firstSubclassFieldOffset(core: prototype.core), within: bound)
    return zip(wanted, offsets).map { field, offset in
      PropertyLayout(name: field.name, offset: offset, storage: field.storage)
    }
  }

  /// Where a subclass's first field can start: past `ManagedObject`'s own fields. A key path to a
  /// stored property of a final class projects the property in place, so its address is the
  /// field's (as in `ManagedObject.property(_:)`).
  private static func firstSubclassFieldOffset(core: ContextCore) -> Int {
    let probe = FieldsStart(
      ObjectRegistration(
        core: core,
        id: ManagedObjectID(
          key: .of(FieldsStart.self, in: core.store.identifier),
          storage: .temporary(context: core.id, serial: .max)),
        isInserted: false, layout: EntityLayout([])))
    let base = UnsafeRawPointer(Unmanaged.passUnretained(probe).toOpaque())
    return withUnsafeMutablePointer(to: &probe[keyPath: \FieldsStart.first]) {
      UnsafeRawPointer($0) - base
    }
  }

  /// Where each wrapper sits in `object`, found by its stamp, reading the object word by word
  /// from `start` (where the subclasses' fields begin) and never past `bound` bytes. Wrappers are
  /// given in declaration order, superclass first, which is the order the class keeps them in,
  /// one after another.
  ///
  /// A stamp can appear more than once: bytes a field's value leaves unused (the payload of an
  /// optional that is nil, an empty `Data`) keep whatever the initializer's scratch space held,
  /// which may be a copy of a wrapper made earlier. The fields initialized after a wrapper are
  /// those declared after it, which lie after it, and those of its superclasses (`super.init`
  /// comes after a class's own fields), which lie before it: `ManagedObject`'s, skipped by
  /// starting at `start`, and a superclass's wrappers, before the wrapper that precedes this
  /// one. So the first copy that starts after the previous wrapper ends is the wrapper itself;
  /// only a superclass's plain stored property declared after its last wrapper could hold a copy
  /// that misleads. A wrong guess does not go unnoticed: every property access through a wrapper finds its property by the
  /// wrapper's address (`ManagedObject.property(_:)`), and stops the program if no property of
  /// the layout is there.
  private static func wrapperOffsets(
    _ wrappers: [(stamp: UInt64, storage: any PropertyStorage.Type)], in object: ManagedObject,
    from start: Int, within bound: Int
  ) -> [Int] {
    var offsets: [Int] = []
    withExtendedLifetime(object) {
      let base = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
      var offset = start
      var end = start  // where the previous wrapper ends
      while offsets.count < wrappers.count, offset + 8 <= bound {
        let wrapper = wrappers[offsets.count]
        let start = offset - wrapper.storage.stampOffset
        if start >= end,
          base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == wrapper.stamp
        {
          offsets.append(start)
          end = start + wrapper.storage.size
        }
        offset += 8
      }
    }
    precondition(
      offsets.count == wrappers.count,
      "the core could not find every property of \(type(of: object)) in its object")
    return offsets
  }

  private static let cache = Locked<[ObjectIdentifier: EntityLayout]>([:])

  /// The layout of `entity`, made on first use from a prototype in `core`.
  static func of(_ entity: ManagedObject.Type, core: ContextCore) -> EntityLayout {
    let key = ObjectIdentifier(entity)
    if let layout = cache.withLock({ $0[key] }) { return layout }
    let layout = EntityLayout(entity, core: core)
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
