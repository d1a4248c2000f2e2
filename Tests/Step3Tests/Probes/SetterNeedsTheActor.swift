// PROBE: fails: mutated | nonisolated
// Setting `name` from a nonisolated function does not compile: only CoreDataActor may.
import ManagedObjectCore
import Subject

nonisolated func rename(_ entity: CoreDataEntity) {
  entity.name = "renamed"
}
