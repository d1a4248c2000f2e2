import ManagedObjectCore
import Step4Solution
import Testing
import WorkshopSupport

// Not an exam: the 2023 talk's delete from another actor (2023 talk, slide 66), adapted as the
// compiler asks today and run on the solution (slides/03-global-actor.md, "Probe: delete from
// another actor"). The slide hands the entity itself to the wrapper, with `await` on each call;
// that no longer compiles (probe DeleteFromAnotherActor). Here the entity's objectID crosses
// instead, and a task on CoreDataActor looks the entity up, deletes it and saves. With the
// step's executor, that task's jobs run inside the context's `perform`: the checker records
// nothing, and the row is gone from the store.

@globalActor
private actor AnotherActor {
  static let shared = AnotherActor()
}

/// Makes and saves an entity on CoreDataActor, and hands out its permanent ID.
@CoreDataActor
private func makeEntity(named name: String) throws -> ManagedObjectID {
  let moc = CoreDataContext()
  let entity = moc.insert()
  entity.name = name
  try moc.save()
  return entity.objectID
}

/// The slide's `deleteObject(managedObject:)`, adapted: it takes the entity's ID.
@AnotherActor
private func deleteObject(id: ManagedObjectID) async throws {
  try await Task { @CoreDataActor in
    let moc = CoreDataContext()
    let found = try moc.fetch(FetchRequest<CoreDataEntity>()).first { $0.objectID == id }
    guard let entity = found else { throw PersistenceError.objectNotFound(id) }
    moc.delete(entity)
    try moc.save()
  }.value
}

extension Step4Tests {
  /// Nested in the exam's suite, which is serialized: it shares the solution's one container
  /// with the checks, and counts the violations recorded meanwhile.
  @Suite("Step 4 — a delete from another actor, by ID")
  struct TheDeleteFromAnotherActor {
    @Test("The ID crosses, a task on CoreDataActor deletes: no violation, and the row is gone")
    func deleteByID() async throws {
      let container = ContextContainer.shared.persistentContainer
      let name = "deleted from another actor by ID"
      let id = try await makeEntity(named: name)
      let saved = try await storedNames(of: CoreDataEntity.self, in: container)
      try #require(saved.contains(name), "the entity to delete was not saved: \(saved)")

      let earlier = container.violations.count
      try await deleteObject(id: id)
      let recorded = Array(container.violations.dropFirst(earlier))
      #expect(recorded.isEmpty, "the delete by ID recorded violations: \(recorded)")
      let left = try await storedNames(of: CoreDataEntity.self, in: container)
      #expect(!left.contains(name), "the row is still in the store after the delete: \(left)")
    }
  }
}
