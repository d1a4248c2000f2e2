// PROBE: compiles
// What the actor may keep and take into a `perform` block: the entity's objectID, which is
// Sendable. Inside the block, the context looks the object up again.
import ManagedObjectCore
import Subject

actor Controller {
  private var entityID: ManagedObjectID?
  private let moc: ManagedObjectContext

  init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
  }

  func configure() async throws {
    let moc = self.moc
    entityID = try await moc.perform {
      let entity = CoreDataEntity(context: moc)
      try moc.save()
      return entity.objectID
    }
  }

  func rename(to newName: String) async throws {
    guard let entityID else { return }
    let moc = self.moc
    try await moc.perform {
      let entity = try moc.existingObject(
        with: entityID, as: CoreDataEntity.self)
      entity.name = newName
      try moc.save()
    }
  }
}
