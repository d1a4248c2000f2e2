// PROBE: fails: Sendable closure | entity
// The 2023 talk's actor (2023 talk, slide 16), fixed the first way that comes to mind, a fix
// the workshop tries and the talk does not: the insert moves into `perform`, and the block sets
// the actor's property. A perform block is `@Sendable` (the iOS 26
// SDK), and it runs on the context's queue, not on the actor: the compiler refuses the write.
import ManagedObjectCore
import Subject

actor Controller {
  private var entity: CoreDataEntity?
  private let moc: ManagedObjectContext

  init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
  }

  func configure() async throws {
    try await moc.perform {
      self.entity = CoreDataEntity(context: self.moc)
      try self.moc.save()
    }
  }
}
