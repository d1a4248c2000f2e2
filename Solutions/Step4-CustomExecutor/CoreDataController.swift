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
}
