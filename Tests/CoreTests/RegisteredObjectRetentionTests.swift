import ManagedObjectCore
import Testing

/// A context keeps an object with no pending changes only while something else references it,
/// as Core Data does. Apple, `retainsRegisteredObjects`: "If set to false, then the receiver keeps
/// strong references to registered objects only when they are inserted, updated, deleted, or
/// locked. The default is false." And `registeredObject(for:)`: "A nil return value means the
/// context doesn't recognize the specified object; the object might still exist in the
/// persistent store. If you need to query both the context and the store, use
/// existingObject(with:)". Every object here is dropped by returning from the block (or closure)
/// that made it: a local's lifetime ends there, so no test waits for anything.
@Suite("A context holds unchanged objects weakly, changed ones strongly")
struct RegisteredObjectRetentionTests {
  @Test("An unchanged object nobody holds leaves the context; existingObject(with:) refetches it")
  func droppedObjectIsForgotten() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let seen = try await context.perform {
      weak var saved: Book?
      let id = try { () throws -> ManagedObjectID in
        let book = Book(context: context)
        book.title = "Dune"
        try context.save()
        saved = book
        return book.objectID
      }()
      let gone = (
        object: saved == nil, registered: context.registeredObject(for: id) == nil,
        all: context.registeredObjects.isEmpty
      )
      let again = try context.existingObject(with: id, as: Book.self)
      return (
        gone: gone, title: again.title,
        registered: context.registeredObject(for: id) === again,
        retains: context.retainsRegisteredObjects
      )
    }
    #expect(!seen.retains, "false by default, as in Core Data")
    #expect(seen.gone.object, "once saved, the context no longer holds the object")
    #expect(seen.gone.registered, "registeredObject(for:) answers nil for a dropped object")
    #expect(seen.gone.all, "registeredObjects no longer lists it")
    #expect(seen.title == "Dune", "existingObject(with:) reads the saved row: a new object")
    #expect(seen.registered, "the refetched object is registered while it is held")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("Objects a fetch returned leave the context once the block that held them ends")
  func fetchedObjectsAreForgotten() async throws {
    let container = makeContainer()
    let id = try await saveBook("Emma", in: container)
    let reader = container.newBackgroundContext()
    let fetched = try await reader.perform { try reader.fetch(FetchRequest<Book>()).count }
    let after = await reader.perform {
      (reader.registeredObjects.count, reader.registeredObject(for: id) == nil)
    }
    let viaObjectWith = await reader.perform { (reader.object(with: id) as? Book)?.title }
    #expect(fetched == 1)
    #expect(after == (0, true), "nothing held the fetched object after its block")
    #expect(viaObjectWith == "Emma", "object(with:) still finds the row")
  }

  @Test("Inserted, updated and deleted objects stay registered until the save, then leave")
  func changedObjectsStayUntilSaved() async throws {
    let container = makeContainer()
    let updatedID = try await saveBook("Old", in: container)
    let deletedID = try await saveBook("Doomed", in: container)
    let context = container.newBackgroundContext()
    let insertedID = try await context.perform {
      try context.existingObject(with: updatedID, as: Book.self).title = "New"
      context.delete(try context.existingObject(with: deletedID))
      let book = Book(context: context)
      book.title = "Fresh"
      return book.objectID
    }
    let pending = await context.perform {
      let inserted = context.registeredObject(for: insertedID)
      let updated = context.registeredObject(for: updatedID) as? Book
      let deleted = context.registeredObject(for: deletedID)
      return (
        inserted: inserted?.isInserted == true, updated: updated?.title,
        deleted: deleted?.isDeleted == true, count: context.registeredObjects.count
      )
    }
    #expect(pending.inserted, "an inserted object is held until it is saved")
    #expect(pending.updated == "New", "an updated object is held, with its change")
    #expect(pending.deleted, "a deleted object is held until its deletion is saved")
    #expect(pending.count == 3)

    let permanentID = try await context.perform {
      let fresh = context.registeredObject(for: insertedID)
      try context.save()
      return fresh?.objectID  // permanent now
    }
    let saved = try await context.perform {
      let registered = [permanentID ?? insertedID, updatedID, deletedID].map {
        context.registeredObject(for: $0) != nil
      }
      return (registered, try context.existingObject(with: updatedID, as: Book.self).title)
    }
    #expect(saved.0 == [false, false, false], "saved, nothing holds them: the context lets go")
    #expect(saved.1 == "New", "the store has the saved change")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("A rolled-back change no longer keeps its object")
  func rollbackReleases() async throws {
    let container = makeContainer()
    let id = try await saveBook("Kept", in: container)
    let context = container.newBackgroundContext()
    try await context.perform {
      try context.existingObject(with: id, as: Book.self).title = "Discarded"
    }
    let held = await context.perform { context.registeredObject(for: id) != nil }
    let released = await context.perform {
      context.rollback()
      return context.registeredObject(for: id) == nil
    }
    let title = try await context.perform {
      try context.existingObject(with: id, as: Book.self).title
    }
    #expect(held, "the edit keeps the object")
    #expect(released, "rolled back, it is unchanged, and nothing holds it")
    #expect(title == "Kept")
  }

  @Test("retainsRegisteredObjects = true keeps every registered object, until it is false again")
  func retainingContextKeepsObjects() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    context.retainsRegisteredObjects = true
    let id = try await context.perform {
      let book = Book(context: context)
      book.title = "Ubik"
      try context.save()
      return book.objectID
    }
    let kept = await context.perform { (context.registeredObject(for: id) as? Book)?.title }
    context.retainsRegisteredObjects = false
    let released = await context.perform { context.registeredObject(for: id) == nil }
    #expect(kept == "Ubik", "with retainsRegisteredObjects, a saved object stays registered")
    #expect(released, "set back to false, the context lets go of the unchanged object")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }
}
