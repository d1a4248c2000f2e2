// PROBE: compiles
// What crosses from CoreDataActor to another actor is the entity's objectID and its values,
// both Sendable. The other side looks the object up again on its own context's queue.
import ManagedObjectCore
import Subject

actor Shelf {
  var kept: [ManagedObjectID: String] = [:]

  func keep(_ id: ManagedObjectID, name: String) {
    kept[id] = name
  }
}

@CoreDataActor
func makeEntity(named name: String) throws -> (id: ManagedObjectID, name: String) {
  let context = CoreDataContext()
  let entity = context.insert()
  entity.name = name
  try context.save()
  return (entity.objectID, entity.name)
}

func handOver(to shelf: Shelf) async throws {
  let made = try await makeEntity(named: "Dune")
  await shelf.keep(made.id, name: made.name)
}
