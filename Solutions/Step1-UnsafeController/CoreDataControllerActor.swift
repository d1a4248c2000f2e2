import ManagedObjectCore

/// The same controller as an actor (2023 talk, slides 16–22). It compiles without a concurrency
/// warning, as the talk shows (2023 talk, slide 18), and it is just as wrong: an actor
/// guarantees that one job runs at a time, not on which thread (2023 talk, slides 21–22). Its
/// jobs run on the cooperative thread pool, never on the context's queue.
public actor CoreDataControllerActor {
  // Not the entity: a `perform` block is `@Sendable`, so it can neither reach the actor's state
  // nor take a managed object in with it. The object's ID can go anywhere.
  private var entityID: ManagedObjectID?
  private let moc: ManagedObjectContext

  public init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
    moc.name = "CoreDataControllerActor.moc"
  }

  /// Inserts the entity and saves it.
  public func configure() async throws {
    // The block runs on the context's queue, not on the actor: it hands back the ID, and the
    // actor keeps it once the block is done.
    entityID = try await moc.perform {
      let entity = CoreDataEntity(context: self.moc)
      try self.moc.saveOrRollBack()  // in CoreDataController.swift
      return entity.objectID
    }
  }

  /// Renames the entity and saves it.
  public func rename(to newName: String) async throws {
    guard let entityID else { return }  // actor state, read on the actor
    try await moc.perform {
      // Not registeredObject(for:): the context let go of the saved entity, which nothing held.
      let entity = try self.moc.existingObject(
        with: entityID, as: CoreDataEntity.self)
      entity.name = newName
      try self.moc.saveOrRollBack()
    }
  }

  /// The entity's name, or nil before `configure()`.
  public func name() async -> String? {
    guard let entityID else { return nil }
    return await moc.perform {
      let entity = try? self.moc.existingObject(
        with: entityID, as: CoreDataEntity.self)
      return entity?.name
    }
  }

  /// Deletes the entity and saves; afterwards `name()` is nil. Before `configure()`, it does
  /// nothing.
  public func delete() async throws {
    guard let entityID else { return }
    try await moc.perform {
      let entity = try self.moc.existingObject(
        with: entityID, as: CoreDataEntity.self)
      self.moc.delete(entity)
      try self.moc.saveOrRollBack()
    }
    // Back on the actor, which is reentrant: forget the ID
    // unless another call replaced it meanwhile.
    if self.entityID == entityID { self.entityID = nil }
  }
}
