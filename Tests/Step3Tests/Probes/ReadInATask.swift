// PROBE: fails: Sendable | CoreDataEntity
// The 2023 talk's slide 62, ported: another actor builds the fetch request inside a task on
// CoreDataActor, as the slide says it must, and takes the fetched entities back out of the task
// (2023 talk, slide 62). Building the request inside still holds; the entities cannot come back:
// a task's result must be Sendable, and a managed object is not. Return IDs and values.
import ManagedObjectCore
import Subject

@globalActor
actor AnotherActor {
  static let shared = AnotherActor()
}

@AnotherActor
func fetchObject() async throws -> CoreDataEntity? {
  let managedObjects = try await Task { @CoreDataActor in
    let request = FetchRequest<CoreDataEntity>()
    return try CoreDataContext().fetch(request)
  }.value
  return managedObjects.first
}
