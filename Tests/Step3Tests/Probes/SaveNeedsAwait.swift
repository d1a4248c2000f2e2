// PROBE: fails: save() | CoreDataActor
// Calling the wrapper's save() from outside the actor without `await` does not compile.
import ManagedObjectCore
import Subject

func saveAll(_ context: CoreDataContext) throws {
  try context.save()
}
