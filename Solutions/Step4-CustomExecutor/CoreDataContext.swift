import ManagedObjectCore

/// A wrapper around the actor's context, the talk's `CAManagedObjectContext` (2023 talk,
/// slide 39): the four things the app does with it.
@CoreDataActor
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

  public func save() throws {
    try moc.save()
  }

  public func delete(_ entity: CoreDataEntity) {
    moc.delete(entity)
  }
}
