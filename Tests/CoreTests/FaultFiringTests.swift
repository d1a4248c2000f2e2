import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// A fault fires with the row its parent context or the store holds when it fires, however it was
/// made; a fault whose row is gone everywhere fires as a deleted object.
///
/// Apple, Core Data Programming Guide, "Faulting and Uniquing": "A managed object fault is an
/// instance of the appropriate class, but its persistent variables are not yet initialized";
/// "If at some stage a persistent property of a fault object is accessed, Core Data automatically
/// retrieves the data for the object and initializes the object" ("Firing Faults"); turning an
/// object into a fault is useful for "ensuring that property values are current".
/// `refresh(_:mergeChanges:)`: with false "the context discards pending changes and the managed
/// object becomes a fault. Upon next access, the context reloads the object's values from the
/// persistent store or last cached state." `shouldDeleteInaccessibleFaults` (an inaccessible
/// fault is "an object with no underlying data in the persistent store"; true by default): the
/// context returns an object whose "isDeleted property is set to true, which adds the object to
/// the context's deletedObjects set", exempt from validation, discarded "when you next call
/// save() or reset()". The core keeps the values the fault last saw there, where Core Data sets
/// them "to nil or 0" (Tests/FIDELITY.md, "Where it differs").
///
/// The tests read attributes with defaults (`pages`) or optional ones (`note`), so that a fault
/// that fires with nothing fails the check with a message instead of stopping the run; the
/// issue's scenario, which reads a required attribute, runs in a child process.
@Suite("Faults fire with the current row")
struct FaultFiringTests {
  /// Issue 24: the default context holds the book as a fault, put there by the automatic merge
  /// of its sibling's save into their shared parent, before the root's save made its ID
  /// permanent; the fault then fired with nothing, and reading `title` stopped the program.
  @Test("ContextStack: a fetch on the main actor after save { … } reads the saved title")
  func stackSaveThenFetchOnMainActor() async {
    await withExitTestOffThePool {
      await #expect(processExitsWith: .success, "reading the saved book must not stop the program")
      {
        let titles = try await FaultFiringTests.stackScenario()
        #expect(titles == ["Saved"])
      }
    }
  }

  @MainActor
  static func stackScenario() async throws -> [String] {
    let stack = ContextStack(container: makeContainer("FaultFiringTests.stack"))
    try await stack.save { local in
      let book = Book(context: local)
      book.title = "Saved"
    }
    return try stack.defaultContext.fetch(FetchRequest<Book>()).map(\.title)
  }

  /// The same, without a child process: the fault's other values must be the saved ones too.
  @Test("ContextStack: the default context's merged fault fires with the root's row")
  @MainActor
  func stackMergedFault() async throws {
    let stack = ContextStack(container: makeContainer())
    try await stack.save { local in
      let book = Book(context: local)
      book.title = "Saved"
      book.pages = 300
      book.note = "kept"
    }
    // The automatic merges run on the main queue; this runs after them.
    let (pages, note) = try await stack.defaultContext.perform(schedule: .enqueued) {
      let book = try #require(stack.defaultContext.fetch(FetchRequest<Book>()).first)
      return (book.pages, book.note)
    }
    #expect(pages == 300)
    #expect(note == "kept")
    #expect(stack.container.violations.isEmpty, "\(stack.container.violations)")
  }

  /// A merge of a sibling's save into a shared parent registers a fault; the parent changes the
  /// row afterwards (its own unsaved edit), and the fault fires with the parent's row as it is
  /// then.
  @Test("A merged fault fires with the parent's row as it is when it fires")
  func mergedFaultReadsParentNow() async throws {
    let container = makeContainer()
    let parent = container.newBackgroundContext()
    let reader = parent.newChildContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    reader.automaticallyMergesChangesFromParent = true
    let writer = parent.newChildContext()
    let id = try await writer.perform {
      let book = Book(context: writer)
      book.title = "Dune"
      book.pages = 1
      try writer.save()
      return book.objectID
    }
    // The merge is a block on the reader's queue; this one runs after it.
    let isFault = try await reader.perform(schedule: .enqueued) {
      try #require(reader.registeredObject(for: id)).isFault
    }
    #expect(isFault)
    try await parent.perform { try parent.existingObject(with: id, as: Book.self).pages = 2 }
    let pages = try await reader.perform {
      try #require(reader.registeredObject(for: id) as? Book).pages
    }
    #expect(pages == 2)
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// `refresh(_:mergeChanges: false)`: "Upon next access, the context reloads the object's values
  /// from the persistent store", not the values it had when it was refreshed.
  @Test("refresh(_:mergeChanges: false) makes a fault that fires with the store's row then")
  func refreshedFaultReadsStoreNow() async throws {
    let container = makeContainer()
    let id = try await saveBook("Dune", in: container)
    let reader = container.newBackgroundContext()
    try await reader.perform {
      let book = try reader.existingObject(with: id, as: Book.self)
      reader.refresh(book, mergeChanges: false)
    }
    try await container.performBackgroundTask { writer in
      try writer.existingObject(with: id, as: Book.self).pages = 2
      try writer.save()
    }
    let (pages, version) = try await reader.perform {
      let book = try reader.existingObject(with: id, as: Book.self)
      let pages = book.pages
      book.note = "edited after the other save"
      return (pages, reader.saveError())
    }
    #expect(pages == 2)
    // The fault read the row's current version, so saving an edit is no conflict.
    #expect(version == nil)
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// A parent holds the object as a fault; the store's row changes after the fault was made. The
  /// parent's child reads the row through the parent, and saves an edit of it through it.
  @Test("A child reads, and saves through, its parent's fault with the store's current row")
  func childSaveThroughParentFault() async throws {
    let container = makeContainer()
    let id = try await saveBook("Dune", in: container)
    let parent = container.newBackgroundContext()
    await parent.perform { _ = parent.object(with: id) }
    try await container.performBackgroundTask { writer in
      try writer.existingObject(with: id, as: Book.self).pages = 2
      try writer.save()
    }
    let child = parent.newChildContext()
    let pages = try await child.perform {
      let book = try child.existingObject(with: id, as: Book.self)
      book.note = "from the child"
      try child.save()
      return book.pages
    }
    #expect(pages == 2)
    let saveError = await parent.perform { parent.saveError() }
    #expect(saveError == nil)
    let stored = try await container.performBackgroundTask { context in
      let book = try context.existingObject(with: id, as: Book.self)
      return (book.pages, book.note)
    }
    #expect(stored == (2, "from the child"))
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// A fetch with a batch size returns faults; a batch fires together, each with its row as the
  /// store holds it then.
  @Test("A batched fetch's faults fire, a batch at a time, with the store's rows then")
  func batchedFaultsReadStoreNow() async throws {
    let container = makeContainer()
    let ids = try await container.performBackgroundTask { context in
      let books = (0..<4).map { index in
        let book = Book(context: context)
        book.title = "b\(index)"
        return book
      }
      try context.save()
      return books.map(\.objectID)
    }
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    try await reader.perform {
      let request = FetchRequest<Book>()
      request.fetchBatchSize = 2
      _ = try reader.fetch(request)
    }
    try await container.performBackgroundTask { writer in
      for (index, id) in ids.enumerated() {
        try writer.existingObject(with: id, as: Book.self).pages = 10 + index
      }
      try writer.save()
    }
    let (first, faults, all) = try await reader.perform {
      let books = try ids.map { try #require(reader.registeredObject(for: $0) as? Book) }
      let first = books[0].pages
      return (first, books.map(\.isFault), books.map(\.pages))
    }
    #expect(first == 10)
    #expect(faults == [false, false, true, true])
    #expect(all == [10, 11, 12, 13])
  }

  /// A fault's relationships are part of its row: they are read when it fires, not when it was
  /// made.
  @Test("A fault's to-many relationship fires with the current row")
  func relationshipOfFaultReadsStoreNow() async throws {
    let container = makeContainer()
    let (authorID, firstID) = try await container.performBackgroundTask { context in
      let (author, book) = insertDune(in: context)
      try context.save()
      return (author.objectID, book.objectID)
    }
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    await reader.perform { _ = reader.object(with: authorID) }
    let secondID = try await container.performBackgroundTask { writer in
      let book = Book(context: writer)
      book.title = "Dune Messiah"
      book.author = try writer.existingObject(with: authorID, as: Author.self)
      try writer.save()
      return book.objectID
    }
    let books = try await reader.perform {
      let author = try #require(reader.registeredObject(for: authorID) as? Author)
      return Set(author.books.map(\.objectID))
    }
    #expect(books == [firstID, secondID])
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// Another context deleted the row before the fault fired: it fires as a deleted object
  /// (`shouldDeleteInaccessibleFaults`), with the values it last saw, and the save discards it.
  @Test("A fault whose row was deleted fires as a deleted object, and the save drops it")
  func faultOfDeletedRowFiresDeleted() async throws {
    let container = makeContainer()
    let id = try await container.performBackgroundTask { context in
      let book = Book(context: context)
      book.title = "Dune"
      book.pages = 412
      try context.save()
      return book.objectID
    }
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    await reader.perform { _ = reader.object(with: id) }
    try await container.performBackgroundTask { writer in
      writer.delete(try writer.existingObject(with: id))
      try writer.save()
    }
    let (pages, isDeleted, deletedCount, saveError, registered) = try await reader.perform {
      let book = try #require(reader.registeredObject(for: id) as? Book)
      let pages = book.pages
      return (
        pages, book.isDeleted, reader.deletedObjects.count, reader.saveError(),
        reader.registeredObjects.count
      )
    }
    #expect(pages == 412)
    #expect(isDeleted)
    #expect(deletedCount == 1)
    #expect(saveError == nil)
    #expect(registered == 0)
    #expect(try await storedBookTitles(in: container).isEmpty)
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// A child's fault whose row its parent dropped (the parent rolled back the insert the child
  /// had merged) is gone everywhere: it fires deleted too, never with values nobody stored.
  @Test("A child's fault whose row its parent rolled back fires as a deleted object")
  func faultOfRolledBackRowFiresDeleted() async throws {
    let container = makeContainer()
    let parent = container.newBackgroundContext()
    let reader = parent.newChildContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    let id = await parent.perform {
      let book = Book(context: parent)
      book.title = "Draft"
      book.pages = 5
      return book.objectID
    }
    await reader.perform { _ = reader.object(with: id) }
    await parent.perform { parent.rollback() }
    let (pages, isDeleted, saveError) = try await reader.perform {
      let book = try #require(reader.registeredObject(for: id) as? Book)
      return (book.pages, book.isDeleted, reader.saveError())
    }
    #expect(pages == 5)
    #expect(isDeleted)
    #expect(saveError == nil)
    #expect(container.violations.isEmpty, "\(container.violations)")
  }
}
