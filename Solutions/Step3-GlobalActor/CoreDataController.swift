import ManagedObjectCore

/// The first controller again (2023 talk, slides 67–70): it keeps its managed object as a
/// property, and does its work through the context wrapper.
@CoreDataActor
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
    guard let entity else { return nil }
    return EntitySnapshot(id: entity.objectID, name: entity.name)
  }

  /// Keeps the saved entity that `id` names, made elsewhere: the ID crossed, the object did not.
  public func adopt(_ id: ManagedObjectID) async throws {
    entity = try CoreDataContext().existingEntity(with: id)
  }

  /// Every saved entity whose name starts with `prefix`, as snapshots sorted by name: fetched on
  /// the actor, with a request built here, and only values leave. Saved means in the store: an
  /// insert whose save failed stays in the actor's context, with a temporary ID that no other
  /// context can use, and a fetch leaves it out only when told to.
  public func savedEntities(prefix: String) async throws -> [EntitySnapshot] {
    let request = FetchRequest<CoreDataEntity>()
    request.includesPendingChanges = false
    return try CoreDataContext().fetch(request)
      .filter { $0.name.hasPrefix(prefix) }
      .map { EntitySnapshot(id: $0.objectID, name: $0.name) }
      .sorted { $0.name < $1.name }
  }
}
