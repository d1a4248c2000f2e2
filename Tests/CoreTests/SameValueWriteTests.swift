import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

// A set marks an object updated, even when it writes the value the property already had.
//
// Sources:
// - NSManagedObject.hasChanges: "true if the receiver has been inserted, has been deleted, or has
//   unsaved changes", the OR of isInserted, isDeleted and isUpdated; isUpdated: "The receiver has
//   unsaved changes if it has been updated since its managed object context was last saved."
//   https://developer.apple.com/documentation/coredata/nsmanagedobject/haschanges
//   https://developer.apple.com/documentation/coredata/nsmanagedobject/isupdated
// - WWDC 2015, session 220 "What's New in Core Data": hasChanges "was a rather basic dirty flag,
//   if you touch the object, we would mark it dirty", while the new hasPersistentChangedValues
//   checks that the properties "are different than what's in the persistent store".
//   https://asciiwwdc.com/2015/sessions/220
// - NSManagedObject.willSave(): "you should typically test for equality of any new value with
//   the existing value before making a change", or Core Data sees a change and calls willSave
//   again: a set counts whether or not the value differs.
//   https://developer.apple.com/documentation/coredata/nsmanagedobject/willsave()
// - NSManagedObject.changedValues(): "the keys and new values of persistent properties with
//   changes since the last fetching or saving". A value written back unchanged has no change to
//   report; Apple's pages do not spell this case out, and the core follows that wording and the
//   session's distinction between the dirty flag and the values.
//   https://developer.apple.com/documentation/coredata/nsmanagedobject/changedvalues()

@Suite("A set marks an object updated, even to the value it had")
struct SameValueWriteTests {
  /// A saved book with 300 pages by Jane Austen, registered in a fresh context.
  private struct SavedBook {
    let container = makeContainer("same-value-write")
    let context: ManagedObjectContext
    let id: ManagedObjectID

    init() async throws {
      let setup = container.newBackgroundContext()
      id = try await setup.perform {
        let author = Author(context: setup)
        author.name = "Jane Austen"
        let book = Book(context: setup)
        book.title = "Persuasion"
        book.pages = 300
        book.author = author
        try setup.save()
        return book.objectID
      }
      context = container.newBackgroundContext()
    }
  }

  @Test("Writing an attribute's own value: hasChanges, updatedObjects, no changedValues")
  func attributeWrittenBackUnchanged() async throws {
    let saved = try await SavedBook()
    let (context, id) = (saved.context, saved.id)
    try await context.perform {
      let book = try context.existingObject(with: id, as: Book.self)
      #expect(!book.hasChanges)
      #expect(!context.hasChanges)
      book.pages = book.pages
      #expect(book.hasChanges)
      #expect(context.hasChanges)
      #expect(context.updatedObjects == [book])
      #expect(book.changedValues().isEmpty)
    }
    #expect(saved.container.violations.isEmpty)
  }

  @Test("Writing a relationship's own target marks the object updated too")
  func relationshipWrittenBackUnchanged() async throws {
    let saved = try await SavedBook()
    let (context, id) = (saved.context, saved.id)
    try await context.perform {
      let book = try context.existingObject(with: id, as: Book.self)
      let author = try #require(book.author)
      book.author = author
      #expect(book.hasChanges)
      #expect(context.updatedObjects == [book])
      #expect(book.changedValues().isEmpty)
      // The inverse did not change: its object was not written.
      #expect(!author.hasChanges)
    }
    #expect(saved.container.violations.isEmpty)
  }

  @Test("The save writes the object: it is in the notification and its row version moves")
  func writtenBackValueIsSaved() async throws {
    let saved = try await SavedBook()
    let (context, id) = (saved.context, saved.id)
    // A second context reads the row before the save, at its current version.
    let stale = saved.container.newBackgroundContext()
    stale.retainsRegisteredObjects = true  // as an app holding it would
    _ = try await stale.perform { try stale.existingObject(with: id) }
    let notes = saved.container.saveNotifications()
    try await context.perform {
      let book = try context.existingObject(with: id, as: Book.self)
      book.pages = 300
      try context.save()
      #expect(!book.hasChanges)
      #expect(context.updatedObjects.isEmpty)
    }
    let note = try await withTimeout(.seconds(20), "the save notification") {
      var iterator = notes.makeAsyncIterator()
      return await iterator.next()
    }
    #expect(note?.updatedObjectIDs == [id])
    // Optimistic locking: the stale copy's edit now conflicts, because the row version moved.
    let error = await stale.perform {
      let book = stale.registeredObjects.first as? Book
      book?.title = "Persuasion, second edition"
      return stale.saveError()
    }
    guard case .mergeConflict(let conflicts)? = error else {
      Issue.record("expected a merge conflict, got \(String(describing: error))")
      return
    }
    #expect(conflicts.map(\.objectID) == [id])
    #expect(saved.container.violations.isEmpty)
  }

  @Test("Rollback and refresh forget a written-back value like any other change")
  func rollbackAndRefreshForgetIt() async throws {
    let saved = try await SavedBook()
    let (context, id) = (saved.context, saved.id)
    try await context.perform {
      let book = try context.existingObject(with: id, as: Book.self)
      book.title = "Persuasion"
      context.rollback()
      #expect(!book.hasChanges)
      #expect(!context.hasChanges)
      book.title = "Persuasion"
      context.refresh(book, mergeChanges: false)
      #expect(!book.hasChanges)
      #expect(context.updatedObjects.isEmpty)
    }
    #expect(saved.container.violations.isEmpty)
  }
}
