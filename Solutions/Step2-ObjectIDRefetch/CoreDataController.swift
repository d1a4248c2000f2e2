import ManagedObjectCore
import Synchronization

/// Thrown by `update(_:)` and `storedName()` before `configure(name:)`.
public struct NotConfiguredError: Error, Equatable {
  public init() {}
}

/// Step 1's lesson applied: every use of a context happens inside its `perform`. But this
/// controller keeps the managed object it created, and later edits it from a fresh context. The
/// 2023 talk's `update(_:)` keeps the object's ID instead, and refetches the object inside the
/// fresh context's `perform` (2023 talk, slides 24–26).
public final class CoreDataController: Sendable {
  // Only Sendable state: the container, and the entity's permanent ID. The ID can travel to any
  // context; the object could not.
  private let container: PersistentContainer
  private let id = Mutex<ManagedObjectID?>(nil)

  public init(container: PersistentContainer) {
    self.container = container
  }

  /// Creates the entity with `name` in a new background context and saves it.
  public func configure(name: String) async throws {
    let moc = container.newBackgroundContext()
    moc.name = "configure"
    let permanentID = try await moc.perform {
      let entity = CoreDataEntity(context: moc)
      entity.name = name
      try moc.save()
      return entity.objectID  // read after the save: permanent now
    }
    id.withLock { $0 = permanentID }
  }

  /// The ID of the configured entity.
  public var entityID: ManagedObjectID? {
    id.withLock { $0 }
  }

  /// Renames the entity from a fresh background context, and saves.
  public func update(_ newName: String) async throws {
    guard let id = entityID else { throw NotConfiguredError() }
    let moc = container.newBackgroundContext()
    moc.name = "update"
    moc.mergePolicy = .mergeByPropertyObjectTrump
    try await moc.perform {
      // Not `try?`: a deleted entity is an error the caller must hear about.
      let entity = try moc.existingObject(with: id, as: CoreDataEntity.self)
      entity.name = newName
      try moc.save()
    }
  }

  /// The entity's name as the store has it, read in a fresh context.
  public func storedName() async throws -> String {
    guard let id = entityID else { throw NotConfiguredError() }
    let moc = container.newBackgroundContext()
    moc.name = "storedName"
    return try await moc.perform {
      try moc.existingObject(with: id, as: CoreDataEntity.self).name
    }
  }

  /// Renames every entity in `ids` (IDs handed over by other parts of the app) in one save: if
  /// one of them cannot be found, the error reaches the caller and no entity is renamed.
  public func renameAll(_ ids: [ManagedObjectID], to newName: String) async throws {
    let moc = container.newBackgroundContext()
    moc.name = "renameAll"
    moc.mergePolicy = .mergeByPropertyObjectTrump
    try await moc.perform {
      for id in ids {
        // A temporary or deleted ID throws here, before the save:
        // then nothing of the batch is saved.
        let entity = try moc.existingObject(with: id, as: CoreDataEntity.self)
        entity.name = newName
      }
      try moc.save()
    }
  }
}
