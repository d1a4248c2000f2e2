import ManagedObjectCore

/// The first controller again (2023 talk, slides 67–70): it keeps its managed object as a
/// property, and does its work through the context wrapper.
// TODO: isolate the controller to the global actor as well: then keeping `entity` as a property
// is checked by the compiler, and every caller from outside has to await. The initializer is
// already `nonisolated` (the checks create a controller from outside the actor, without await):
// leave it so. Isolate the entity, the wrapper and the controller, then build: one at a time,
// the others fail to compile.
public final class CoreDataController {
  private var entity: CoreDataEntity?

  public nonisolated init() {}

  /// Inserts the entity with `name` and saves it.
  public func configure(name: String) async throws {
    let context = CoreDataContext()
    let entity = context.insert()
    entity.name = name
    try context.save()
    self.entity = entity
  }

  /// Renames the entity and saves it.
  public func rename(to newName: String) async throws {
    entity?.name = newName
    try CoreDataContext().save()
  }

  /// The entity's name, or nil before `configure(name:)` and after `delete()`.
  public func name() async -> String? {
    entity?.name
  }

  /// Deletes the entity and saves.
  public func delete() async throws {
    guard let entity else { return }
    let context = CoreDataContext()
    context.delete(entity)
    try context.save()
    self.entity = nil
  }

  /// What of the kept entity may leave the actor: its ID and its name. Nil when none is kept.
  public func snapshot() async -> EntitySnapshot? {
    // TODO: hand the kept entity across the actor boundary the only way it can go: as the
    // Sendable snapshot of its ID and its name, built here, on the actor.
    nil
  }

  /// Keeps the saved entity that `id` names, made elsewhere: the ID crossed, the object did not.
  public func adopt(_ id: ManagedObjectID) async throws {
    // TODO: the other half of the hand-over: look the entity up again by its ID, on the actor,
    // through the context wrapper, and keep it as this controller's entity.
  }

  /// Every saved entity whose name starts with `prefix`, as snapshots sorted by name: fetched on
  /// the actor, with a request built here, and only values leave. Saved means in the store: an
  /// insert whose save failed stays in the actor's context, with a temporary ID that no other
  /// context can use, and a fetch leaves it out only when told to.
  public func savedEntities(prefix: String) async throws -> [EntitySnapshot] {
    // TODO: stretch — fetch the saved entities whose name starts with `prefix`, sorted by name,
    // with a request built here on the actor, and return each as a snapshot: the request and the
    // entities stay on the actor, only their IDs and names leave. Saved means in the store: a
    // fetch also returns the context's unsaved inserts, with temporary IDs, unless the request's
    // `includesPendingChanges` is false. A `#Predicate` or a `SortDescriptor` on the isolated
    // entity does not compile (its key paths are not Sendable): filter and sort the fetched
    // entities here instead.
    // The call below tells the checks you have not started: delete it when you do.
    StretchTask.notStarted()
    return []
  }
}
