// PROBE: compiles
// An entity made on CoreDataActor can be handed to another actor: it is Sendable.
import ManagedObjectCore
import Subject

actor Shelf {
  var kept: [CoreDataEntity] = []

  func keep(_ entity: CoreDataEntity) {
    kept.append(entity)
  }
}

@CoreDataActor
func makeEntity() -> CoreDataEntity {
  CoreDataContext().insert()
}

func handOver(to shelf: Shelf) async {
  let entity = await makeEntity()
  await shelf.keep(entity)
}
