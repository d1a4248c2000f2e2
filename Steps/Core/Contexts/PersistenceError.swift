/// How a save resolves optimistic-locking conflicts, like `NSMergePolicy`.
///
/// A conflict means the store's row changed (or was deleted) after this context read it.
public enum MergePolicy: Sendable, Hashable {
  /// Fail the save with ``PersistenceError/mergeConflict(_:)``. Core Data's default.
  case error
  /// Property by property: this context's changes win, the store's other changes are kept.
  case mergeByPropertyObjectTrump
  /// Property by property: the store's changes win, this context's other changes are kept.
  case mergeByPropertyStoreTrump
  /// Write every property of the object as this context sees it, even unchanged ones: stale
  /// values overwrite what others saved (what SwiftData does on every save).
  case overwrite
  /// Discard this context's changes to the conflicting object; the store wins.
  case rollback
}

/// Errors of the managed-object core.
public enum PersistenceError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Required attributes were nil; nothing was saved.
  case validation([ValidationFailure])
  /// Rows changed in the store since they were read, under ``MergePolicy/error``; nothing was saved.
  case mergeConflict([MergeConflict])
  /// No object with this ID exists in the store.
  case objectNotFound(ManagedObjectID)
  /// The object was deleted from the store.
  case objectDeleted(ManagedObjectID)
  /// The ID belongs to another store.
  case foreignStore(ManagedObjectID)
  /// A temporary ID means something only in the context that made it: save first, or call
  /// `obtainPermanentIDs(for:)`, and keep the permanent ID.
  case temporaryIDOutsideItsContext(ManagedObjectID)
  /// The object exists but is not of the requested entity.
  case entityMismatch(ManagedObjectID, expected: String)
  /// The fetch request's predicate threw.
  case predicateFailed(String)
  /// A batch request or dictionary fetch named a property the entity does not have as an
  /// attribute.
  case unknownProperty(entity: String, property: String)
  /// A save of changes in a context marked ``ManagedObjectContext/isReadOnly``.
  case readOnlyContext(String)
  /// A dictionary fetch asked for something it cannot compute.
  case invalidFetch(String)
  /// A batch request gave a property a value of the wrong type.
  case typeMismatch(entity: String, property: String, expected: String)
  /// Inserts collided with existing rows, or with each other, on a uniqueness constraint, under
  /// ``MergePolicy/error``; nothing was written.
  case constraintConflict([ConstraintConflict])

  public var description: String {
    switch self {
    case .validation(let failures):
      "Validation failed: " + failures.map(\.description).joined(separator: "; ")
    case .mergeConflict(let conflicts):
      "Merge conflict: " + conflicts.map(\.description).joined(separator: "; ")
    case .objectNotFound(let id): "No object with ID \(id) exists in the store."
    case .objectDeleted(let id): "The object \(id) was deleted."
    case .foreignStore(let id): "The ID \(id) belongs to another store."
    case .temporaryIDOutsideItsContext(let id):
      "The temporary ID \(id) was used outside the context that made it; keep permanent IDs "
        + "(save first, or call obtainPermanentIDs(for:))."
    case .entityMismatch(let id, let expected): "The object \(id) is not a \(expected)."
    case .predicateFailed(let message): "The fetch predicate failed: \(message)"
    case .unknownProperty(let entity, let property):
      "\(entity) has no attribute named '\(property)'."
    case .invalidFetch(let reason): "Invalid fetch: \(reason)"
    case .readOnlyContext(let name):
      "The context '\(name)' is read-only: it may fetch, but not save changes."
    case .typeMismatch(let entity, let property, let expected):
      "\(entity).\(property) takes a \(expected)."
    case .constraintConflict(let conflicts):
      "Uniqueness conflict: " + conflicts.map(\.description).joined(separator: "; ")
    }
  }
}

/// A required property that was nil when its object was saved.
public struct ValidationFailure: Sendable, Hashable, CustomStringConvertible {
  public let objectID: ManagedObjectID
  public let entityName: String
  public let property: String

  public var description: String {
    "\(entityName).\(property) is required but nil (object \(objectID))"
  }
}

/// Two rows of an entity with the same values for a uniqueness constraint.
public struct ConstraintConflict: Sendable, Hashable, CustomStringConvertible {
  public let entityName: String
  /// The constraint's attributes.
  public let properties: [String]
  /// The row that already holds the key.
  public let existingObjectID: ManagedObjectID

  public var description: String {
    "\(entityName) [\(properties.joined(separator: ", "))] already taken by \(existingObjectID)"
  }
}

/// One object whose save conflicted with the store.
public struct MergeConflict: Sendable, Hashable, CustomStringConvertible {
  public let objectID: ManagedObjectID
  public let entityName: String
  /// True when another context deleted the row.
  public let isDeletedInStore: Bool
  /// Properties the store changed since this context read the object.
  public let changedInStore: [String]
  /// Properties this context changed.
  public let changedInContext: [String]

  public var description: String {
    if isDeletedInStore {
      return "\(entityName) \(objectID) was deleted in the store"
    }
    return "\(entityName) \(objectID): store changed [\(changedInStore.joined(separator: ", "))], "
      + "context changed [\(changedInContext.joined(separator: ", "))]"
  }
}
