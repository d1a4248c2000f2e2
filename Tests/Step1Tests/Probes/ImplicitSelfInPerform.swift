// PROBE: fails: explicit use of 'self'
// The class's fix written without `self.`: the block escapes to the context's queue, so Swift
// wants the capture of `self` spelled out, as it does with Core Data's `perform`.
import ManagedObjectCore
import Subject

final class Controller: @unchecked Sendable {
  private var entity: CoreDataEntity?
  private let moc: ManagedObjectContext

  init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
  }

  func configure() async throws {
    try await moc.perform {
      entity = CoreDataEntity(context: moc)
      try moc.save()
    }
  }
}
