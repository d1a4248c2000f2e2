// PROBE: fails: non-Sendable | CoreDataEntity | insert()
// The 2023 talk's slide 60, ported: another actor creates an entity through the wrapper, with
// `await` on every call, and returns it (2023 talk, slide 60). The entity made on CoreDataActor
// is not Sendable (SE-0434), so it cannot be returned to another actor: `await` is not enough.
// Return its objectID and values instead (probe IDAndValuesCrossActors).
import ManagedObjectCore
import Subject

@globalActor
actor AnotherActor {
  static let shared = AnotherActor()
}

@AnotherActor
func createObject() async throws -> CoreDataEntity {
  let moc = await CoreDataContext()
  let managedObject: CoreDataEntity = await moc.insert()
  try await moc.save()
  return managedObject
}
