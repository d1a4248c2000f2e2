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

  let storeIdentifier: UUID
  /// The name of the object's entity, for example `CoreDataEntity`.
  public let entityName: String
  let storage: Storage

  init(storeIdentifier: UUID, entityName: String, storage: Storage) {
    self.storeIdentifier = storeIdentifier
    self.entityName = entityName
    self.storage = storage
  }

  public static func == (lhs: ManagedObjectID, rhs: ManagedObjectID) -> Bool {
    lhs.storage == rhs.storage && lhs.storeIdentifier == rhs.storeIdentifier
      && lhs.entityName == rhs.entityName
  }

  /// Hashes the row or serial only: it is nearly unique on its own, and IDs are hashed a lot.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(storage)
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
