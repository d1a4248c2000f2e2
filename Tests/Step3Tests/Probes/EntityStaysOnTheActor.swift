// PROBE: fails: non-Sendable | CoreDataEntity
// An entity made on CoreDataActor cannot be handed to another actor. The 2023 talk isolates it
// so that it can be treated as Sendable (2023 talk, slides 36, 38). But SE-0434 says a
// global-actor subclass of a non-Sendable class is not Sendable, and `ManagedObject` (like
// `NSManagedObject` in the iOS 26 SDK) is not.
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
