import ManagedObjectCore

/// The same controller as an actor (slides 16–22). It compiles without a single warning, and it
/// is just as wrong: an actor guarantees that one job runs at a time, not on which thread. Its
/// jobs run on the cooperative thread pool, never on the context's queue.
public actor CoreDataControllerActor {
  private var entity: CoreDataEntity?
  private let moc: ManagedObjectContext

  public init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
    moc.name = "CoreDataControllerActor.moc"
  }

  /// Inserts the entity and saves it.
  public func configure() async throws {
    // The block runs on the context's queue, not on the actor: it returns the entity, and the
    // actor keeps it once the block is done.
    let moc = self.moc
    entity = try await moc.perform {
      let entity = CoreDataEntity(context: moc)
      try moc.save()
      return entity
    }
  }

  /// Renames the entity and saves it.
  public func rename(to newName: String) async throws {
    let entity = self.entity  // actor state, read on the actor
    try await moc.perform {
      entity?.name = newName  // the managed object, used on its context's queue
      try moc.save()
    }
  }

  /// The entity's name, or nil before `configure()`.
  public func name() async -> String? {
    let entity = self.entity
    return await moc.perform { entity?.name }
  }
}
