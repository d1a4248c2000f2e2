import ManagedObjectCore

/// Thrown by `update(_:)` and `storedName()` before `configure(name:)`.
public struct NotConfiguredError: Error, Equatable {
  public init() {}
}

/// Step 1's lesson applied: every use of a context happens inside its `perform`. But this
/// controller keeps the managed object it created, and later edits it from a fresh context. The
/// 2023 talk's `update(_:)` keeps the object's ID instead, and refetches the object inside the
/// fresh context's `perform` (2023 talk, slides 24–26).
// The lesson, on purpose: keeping a managed object takes this unchecked promise; the solution
// keeps a Sendable ID instead and drops it (slides/02-objectid-refetch.md#sendable-state).
public final class CoreDataController: @unchecked Sendable {
  // TODO: keeping a managed object takes this unchecked promise, and the object stays bound to
  // the context that made it. Keep its permanent `ManagedObjectID` instead: it is Sendable, so
  // the class can be plainly `Sendable`, with a `Mutex` around the one mutable field.
  private let container: PersistentContainer
  private var entity: CoreDataEntity?

  public init(container: PersistentContainer) {
    self.container = container
  }

  /// Creates the entity with `name` in a new background context and saves it.
  public func configure(name: String) async throws {
    let moc = container.newBackgroundContext()
    moc.name = "configure"
    let entity = try await moc.perform {
      let entity = CoreDataEntity(context: moc)
      entity.name = name
      try moc.save()
      return entity
    }
    // TODO: keep `entity.objectID`, read after the save: before it, the ID is temporary.
    self.entity = entity
  }

  /// The ID of the configured entity.
  public var entityID: ManagedObjectID? {
    // TODO: return the kept ID.
    entity?.objectID
  }

  /// Renames the entity from a fresh background context, and saves.
  public func update(_ newName: String) async throws {
    guard entity != nil else { throw NotConfiguredError() }
    let moc = container.newBackgroundContext()
    moc.name = "update"
    moc.mergePolicy = .mergeByPropertyObjectTrump
    try await moc.perform {
      // TODO: `self.entity` belongs to the context `configure` made, not to `moc`: the block
      // reaches it only through the unchecked promise (capturing the object itself does not
      // compile). Refetch the entity here, in `moc`, from the kept ID; let the error through.
      self.entity?.name = newName
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
    // TODO: stretch — one fresh context for the whole batch: inside one `perform`, turn each ID
    // back into its entity and rename it, then save once. A temporary or deleted ID must throw
    // the lookup's error before the save, so that nothing of the batch is saved.
    // The call below tells the checks you have not started: delete it when you do.
    StretchTask.notStarted()
  }
}
