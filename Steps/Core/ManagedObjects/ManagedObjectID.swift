import Foundation

/// A thread-safe, Sendable identifier of a managed object, like `NSManagedObjectID`.
///
/// An inserted object has a temporary ID that is meaningful only inside its own context. Saving
/// (or `obtainPermanentIDs(for:)`) gives it a permanent ID, which any context of the same store can
/// resolve with `existingObject(with:)`. Keep permanent IDs; never keep temporary ones.
public struct ManagedObjectID: Sendable, Hashable, CustomStringConvertible {
  enum Storage: Sendable, Hashable {
    case temporary(context: ContextID, serial: UInt64)
    case permanent(row: Int64)
  }

  let storage: Storage
  /// The store and the entity, by number: an ID is 24 bytes and plain data, and every table the
  /// core keys by IDs (registered objects, pending changes, re-keyed IDs) is half the size.
  let key: EntityKey

  /// The identifier of the store the object belongs to.
  var storeIdentifier: UUID { key.store }

  /// The name of the object's entity, for example `CoreDataEntity`.
  public var entityName: String { key.entity }

  init(storeIdentifier: UUID, entityName: String, storage: Storage) {
    self.init(key: EntityKey(store: storeIdentifier, entity: entityName), storage: storage)
  }

  init(key: EntityKey, storage: Storage) {
    self.key = key
    self.storage = storage
  }

  public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
    lhs.storage == rhs.storage && lhs.key == rhs.key
  }

  /// Hashes the row or serial only, as one word: it is nearly unique on its own, and IDs are
  /// hashed a lot (every table of registered objects and pending changes is keyed by them).
  public func hash(into hasher: inout Hasher) {
    switch storage {
    case .temporary(let context, let serial): hasher.combine(serial ^ context.rawValue << 48)
    case .permanent(let row): hasher.combine(row)
    }
  }

  /// True until the object is saved or given a permanent ID.
  public var isTemporaryID: Bool {
    if case .temporary = storage { return true }
    return false
  }

  var row: Int64? {
    if case .permanent(let row) = storage { return row }
    return nil
  }

  /// A URL that names this object, `x-coredata://<store>/<entity>/p<row>` (or `t…` while
  /// temporary). ``PersistentContainer/managedObjectID(forURIRepresentation:)`` reverses it.
  public func uriRepresentation() -> URL {
    let last =
      switch storage {
      case .temporary(let context, let serial): "t\(context.rawValue)-\(serial)"
      case .permanent(let row): "p\(row)"
      }
    return URL(string: "x-coredata://\(storeIdentifier.uuidString)/\(entityName)/\(last)")!
  }

  public var description: String {
    uriRepresentation().absoluteString
  }

  init?(uri: URL) {
    guard uri.scheme == "x-coredata", let host = uri.host,
      let store = UUID(uuidString: host)
    else { return nil }
    let parts = uri.path.split(separator: "/").map(String.init)
    guard parts.count == 2, let kind = parts[1].first else { return nil }
    let rest = parts[1].dropFirst()
    switch kind {
    case "p":
      guard let row = Int64(rest) else { return nil }
      self.init(storeIdentifier: store, entityName: parts[0], storage: .permanent(row: row))
    case "t":
      let pieces = rest.split(separator: "-")
      guard pieces.count == 2, let context = UInt64(pieces[0]), let serial = UInt64(pieces[1])
      else { return nil }
      self.init(
        storeIdentifier: store, entityName: parts[0],
        storage: .temporary(context: ContextID(rawValue: context), serial: serial))
    default:
      return nil
    }
  }
}

/// A store and an entity, numbered once per process. Only messages and URIs ask for the UUID and
/// the name back. Its locks take no other lock, so code holding any lock may use it.
struct EntityKey: Hashable, Sendable {
  private let number: UInt32

  private struct Entry: Hashable {
    let store: UUID
    let entity: String
  }

  private struct Table {
    var numbers: [Entry: UInt32] = [:]
    var entries: [Entry] = []
  }

  private static let table = Locked(Table())

  init(store: UUID, entity: String) {
    let entry = Entry(store: store, entity: entity)
    number = Self.table.withLock { table in
      if let number = table.numbers[entry] { return number }
      let number = UInt32(table.entries.count)
      table.entries.append(entry)
      table.numbers[entry] = number
      return number
    }
  }

  private struct ClassInStore: Hashable {
    let store: UUID
    let entity: ObjectIdentifier
  }

  private static let byClass = Locked<[ClassInStore: EntityKey]>([:])

  /// The key of `entity`'s objects in `store`, remembered per class: IDs are made for every row a
  /// save writes and a fetch reads, and the class is cheaper to look up than its name.
  static func of(_ entity: ManagedObject.Type, in store: UUID) -> EntityKey {
    let lookup = ClassInStore(store: store, entity: ObjectIdentifier(entity))
    if let key = byClass.withLock({ $0[lookup] }) { return key }
    let key = EntityKey(store: store, entity: EntityNames.name(of: entity))
    byClass.withLock { $0[lookup] = key }
    return key
  }

  private var entry: Entry { Self.table.withLock { $0.entries[Int(number)] } }

  var store: UUID { entry.store }

  var entity: String { entry.entity }
}
