// PROBE: fails: sending 'managedObject' | risks causing data races
// Ported from the 2023 talk (2023 talk, slide 66): a function on another global actor deletes an entity through
// the wrapper, with `await` on every call. The slide says the compiler demands `await` there
// (2023 talk, slide 66); today `await` is not enough: the entity is not Sendable (SE-0434), and
// handing the caller's entity to a CoreDataActor method would share it between two actors.
// Pass its objectID, and look it up on CoreDataActor.
import ManagedObjectCore
import Subject

@globalActor
actor AnotherActor {
  static let shared = AnotherActor()
}

@AnotherActor
func deleteObject(managedObject: CoreDataEntity) async throws {
  let moc = await CoreDataContext()
  await moc.delete(managedObject)
  try await moc.save()
}
