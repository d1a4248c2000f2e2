import ManagedObjectCore

/// The same controller as an actor (2023 talk, slides 16–22). It compiles without a concurrency
/// warning, as the talk shows (2023 talk, slide 18), and it is just as wrong: an actor
/// guarantees that one job runs at a time, not on which thread (2023 talk, slides 21–22). Its
/// jobs run on the cooperative thread pool, never on the context's queue.
public actor CoreDataControllerActor {
  // TODO: a `perform` block is `@Sendable`: it cannot reach this actor's state, nor take a
  // managed object in with it, so the entity cannot stay here. Keep something that can cross.
  private var entity: CoreDataEntity?
  private let moc: ManagedObjectContext

  public init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
    moc.name = "CoreDataControllerActor.moc"
  }

  /// Inserts the entity and saves it.
  public func configure() async throws {
    // TODO: insert and save inside `moc.perform`; let the block hand back what the actor keeps.
    // As in the class, a save that throws rolls the context back before the error goes on.
    entity = CoreDataEntity(context: moc)
    try moc.save()
  }

  /// Renames the entity and saves it.
  public func rename(to newName: String) async throws {
    // TODO: read the kept value on the actor, then find the entity, rename and save, all inside
    // `moc.perform`.
    entity?.name = newName
    try moc.save()
  }

  /// The entity's name, or nil before `configure()`.
  public func name() async -> String? {
    // TODO: find the entity and read the attribute inside `moc.perform`.
    entity?.name
  }

  /// Deletes the entity and saves; afterwards `name()` is nil. Before `configure()`, it does
  /// nothing.
  public func delete() async throws {
    // TODO: stretch — the same rule as the other methods: find the entity, delete it and save,
    // all inside one awaited `moc.perform`; then, back on the actor, forget what it kept.
    // The call below tells the checks you have not started: delete it when you do.
    StretchTask.notStarted()
  }
}
