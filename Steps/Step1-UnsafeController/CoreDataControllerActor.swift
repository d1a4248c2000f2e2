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
    // TODO: insert and save inside `moc.perform`, then keep the entity in the actor.
    entity = CoreDataEntity(context: moc)
    try moc.save()
  }

  /// Renames the entity and saves it.
  public func rename(to newName: String) async throws {
    // TODO: read `entity` on the actor, then rename and save inside `moc.perform`.
    entity?.name = newName
    try moc.save()
  }

  /// The entity's name, or nil before `configure()`.
  public func name() async -> String? {
    // TODO: read the attribute inside `moc.perform`.
    entity?.name
  }
}
