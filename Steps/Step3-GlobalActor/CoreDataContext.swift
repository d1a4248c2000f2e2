import ManagedObjectCore

/// A wrapper around the actor's context, the talk's `CAManagedObjectContext` (2023 talk,
/// slide 39): the things the app does with it.
// TODO: isolate the wrapper to the global actor too, so that its methods run only on
// CoreDataActor, and code anywhere else must await them and cannot share non-Sendable values
// (a fetch request, an entity) with them.
public final class CoreDataContext {
  private let moc: ManagedObjectContext

  public init() {
    moc = ContextContainer.shared.context
  }

  public func insert() -> CoreDataEntity {
    CoreDataEntity(context: moc)
  }

  public func fetch(_ request: FetchRequest<CoreDataEntity>) throws -> [CoreDataEntity] {
    try moc.fetch(request)
  }

  /// The entity that `id` names, registered in this context or fetched from the store.
  public func existingEntity(with id: ManagedObjectID) throws -> CoreDataEntity {
    // TODO: look the entity up by its ID in the wrapper's context (Step 2's move: the context
    // finds it among its registered objects or in the store, and says which entity you expect).
    throw PersistenceError.objectNotFound(id)
  }

  public func save() throws {
    try moc.save()
  }

  public func delete(_ entity: CoreDataEntity) {
    moc.delete(entity)
  }
}
