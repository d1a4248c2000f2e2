import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// Apple, `NSManagedObjectContext.delete(_:)`: "If object has not yet been saved to a persistent
/// store, it is simply removed from the receiver." And `deletedObjects`: "if an object has been
/// inserted and deleted without an intervening save operation, it may not be included in the
/// set." The core removes such an object when its delete rules run (at the end of the event, or
/// at the save when `propagatesDeletesAtEndOfEvent` is false): it leaves the inserted, deleted and
/// registered objects, and no save writes or announces it.
@Suite("Deleting an object that was never saved removes it from its context")
struct UnsavedDeletionTests {
  @Test("An unsaved object, deleted, leaves no pending change after processPendingChanges")
  func insertThenDelete() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let seen = await context.perform {
      let book = Book(context: context)
      book.title = "Draft"
      context.delete(book)
      let during = (book.isDeleted, context.deletedObjects.count)
      context.processPendingChanges()
      return (
        during: during, inserted: context.insertedObjects.count,
        deleted: context.deletedObjects.count, registered: context.registeredObjects.count,
        hasChanges: context.hasChanges, orphaned: book.managedObjectContext == nil
      )
    }
    #expect(seen.during == (true, 1), "until the event ends, it is a pending deletion")
    #expect(seen.inserted == 0)
    #expect(seen.deleted == 0, "\"simply removed from the receiver\", not a pending deletion")
    #expect(seen.registered == 0)
    #expect(!seen.hasChanges, "nothing is left to save")
    #expect(seen.orphaned, "the object no longer belongs to the context")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// The author was written twice (the link, then the delete rule undoing it), and any write marks
  /// an object updated (`SameValueWriteTests`), so the author is saved; the book never is.
  @Test("Its link to a saved object is undone, and the save that follows never names it")
  func linkUndoneAndSaveSilent() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let authorID = try await context.perform {
      let author = Author(context: context)
      author.name = "Ann"
      try context.save()
      return author.objectID
    }
    let saves = Mutex<[ContextDidSave]>([])
    let token = container.addSaveObserver { note in saves.withLock { $0.append(note) } }
    defer { container.removeSaveObserver(token) }
    let heard = ObjectsDidChangeRecorder(context)
    defer { heard.stop() }

    try await context.perform {
      let book = Book(context: context)
      book.title = "Draft"
      book.author = try context.existingObject(with: authorID, as: Author.self)
      context.delete(book)
    }  // the block's return ends the event: the delete rules run, the book leaves
    let after = try await context.perform {
      let author = try context.existingObject(with: authorID, as: Author.self)
      let state = (
        books: author.books.count, inserted: context.insertedObjects.count,
        deleted: context.deletedObjects.count
      )
      try context.save()
      return state
    }
    #expect(after.books == 0, "the delete rule (nullify) undid the link")
    #expect(after.inserted == 0 && after.deleted == 0)
    let notes = saves.withLock { $0 }
    #expect(notes.allSatisfy { $0.insertedObjectIDs.isEmpty && $0.deletedObjectIDs.isEmpty })
    #expect(heard.all.isEmpty, "the core posts objects-did-change for merges and refreshes only")
    let stored = container.newBackgroundContext()
    let (books, linked) = try await stored.perform {
      (
        try stored.count(for: FetchRequest<Book>()),
        try stored.existingObject(with: authorID, as: Author.self).books.count
      )
    }
    #expect(books == 0 && linked == 0)
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("With propagatesDeletesAtEndOfEvent false, it stays a pending deletion until the save")
  func deferredUntilSave() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    context.propagatesDeletesAtEndOfEvent = false
    let seen = try await context.perform {
      let book = Book(context: context)
      book.title = "Draft"
      context.delete(book)
      context.processPendingChanges()
      let pending = (context.deletedObjects.count, context.hasChanges)
      try context.save()
      return (
        pending: pending, deleted: context.deletedObjects.count, hasChanges: context.hasChanges,
        registered: context.registeredObjects.count
      )
    }
    // Its delete rules have not run, so it stays until they do: Apple allows it ("may not be
    // included"), and no other object is left pointing at an object that is gone.
    #expect(seen.pending == (1, true))
    #expect(seen.deleted == 0)
    #expect(!seen.hasChanges)
    #expect(seen.registered == 0)
    #expect(container.violations.isEmpty, "\(container.violations)")
  }
}
