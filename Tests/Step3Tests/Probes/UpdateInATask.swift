// PROBE: fails: sending 'managedObject' | risks causing data races
// The 2023 talk's slide 64, ported: another actor updates an entity by starting a task on
// CoreDataActor that sets its name (2023 talk, slide 64). The task captures the caller's entity,
// which is not Sendable: the closure would share it between two actors, and the compiler refuses.
// Pass the objectID into the task, and look the entity up there.
import ManagedObjectCore
import Subject

@globalActor
actor AnotherActor {
  static let shared = AnotherActor()
}

@AnotherActor
func updateObject(managedObject: CoreDataEntity) async throws {
  try await Task { @CoreDataActor in
    let moc = CoreDataContext()
    managedObject.name = "Jiro"
    try moc.save()
  }.value
}
