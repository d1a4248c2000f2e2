// PROBE: fails: sending | request
// A fetch request built outside the actor, handed in, and used again does not compile: it is
// not Sendable (2023 talk, slide 62). Build it inside the actor instead.
import ManagedObjectCore
import Subject

func fetchFromOutside(_ context: CoreDataContext) async throws -> Int {
  let request = FetchRequest<CoreDataEntity>()
  request.fetchLimit = 10
  let found = try await context.fetch(request)
  request.fetchOffset = found.count
  return request.fetchOffset
}
