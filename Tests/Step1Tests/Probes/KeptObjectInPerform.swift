// PROBE: fails: capture | non-Sendable | CoreDataEntity
// The actor gets its entity out of the block (that compiles) and keeps it. Using it again means
// taking it into the next `perform` block, and a `@Sendable` block cannot capture a managed
// object. What used to be a silent race is a compile error: keep the objectID instead (step 2).
import ManagedObjectCore
import Subject

actor Controller {
  private var entity: CoreDataEntity?
  private let moc: ManagedObjectContext

  init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
  }

  func configure() async throws {
    let moc = self.moc
    entity = try await moc.perform {
      let entity = CoreDataEntity(context: moc)
      try moc.save()
      return entity
    }
  }

  func rename(to newName: String) async throws {
    let entity = self.entity
    let moc = self.moc
    try await moc.perform {
      entity?.name = newName
      try moc.save()
    }
  }
}
