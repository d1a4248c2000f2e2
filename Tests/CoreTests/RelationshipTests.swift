import Foundation
import ManagedObjectCore
import Testing

@Suite("Relationships")
struct RelationshipTests {
  @Test(
    "Setting a to-one side updates the to-many inverse, and moving an object updates both owners")
  func inverseMaintained() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    await context.perform {
      let ann = Author(context: context)
      ann.name = "Ann"
      let bob = Author(context: context)
      bob.name = "Bob"
      let book = Book(context: context)
      book.title = "Shared"
      book.author = ann
      #expect(ann.books == [book])
      bob.books = [book]
      #expect(book.author === bob)
      #expect(ann.books.isEmpty)
      book.author = nil
      #expect(bob.books.isEmpty)
    }
    #expect(container.violations.isEmpty)
  }

  @Test("One-to-one: taking a partner away from someone else clears their side")
  func oneToOne() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    await context.perform {
      let a = Person(context: context)
      let b = Person(context: context)
      let c = Person(context: context)
      a.partner = b
      #expect(b.partner === a)
      c.partner = b
      #expect(b.partner === c)
      #expect(a.partner == nil)
    }
  }

  @Test("Relationships survive a save and resolve in another context")
  func savedAcrossContexts() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let authorID = try await context.perform {
      let ann = Author(context: context)
      ann.name = "Ann"
      for title in ["X", "Y"] {
        let book = Book(context: context)
        book.title = title
        book.author = ann
      }
      try context.save()
      return ann.objectID
    }
    let other = container.newBackgroundContext()
    let titles = try await other.perform {
      let ann = try other.existingObject(with: authorID, as: Author.self)
      return Set(ann.books.map(\.title))
    }
    #expect(titles == ["X", "Y"])
  }

  /// Core Data runs delete rules "at the end of the event in which a change was made"
  /// (`propagatesDeletesAtEndOfEvent`, true by default), or when `processPendingChanges()` is
  /// called; with the property false, "only during a save operation".
  @Test("Deleting an object nullifies the relationships that point to it at the end of the event")
  func deleteNullifies() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let (bookID, stillThere, processed) = try await context.perform {
      let ann = Author(context: context)
      ann.name = "Ann"
      let book = Book(context: context)
      book.title = "Orphan"
      book.author = ann
      try context.save()
      context.delete(ann)
      let stillThere = book.author === ann
      context.processPendingChanges()
      return (book.objectID, stillThere, book.author == nil)
    }
    #expect(stillThere, "the delete rule waits for the end of the event")
    #expect(processed, "processPendingChanges() ends the event")
    try await context.perform {
      let book = try context.existingObject(with: bookID, as: Book.self)
      let bob = Author(context: context)
      bob.name = "Bob"
      book.author = bob
      try context.save()
      context.delete(bob)
    }
    let nullified = try await context.perform {
      try context.existingObject(with: bookID, as: Book.self).author == nil
    }
    #expect(nullified, "the end of the perform block ends the event")
    try await context.perform { try context.save() }
    let other = container.newBackgroundContext()
    let author = try await other.perform {
      try other.fetch(FetchRequest<Book>()).first.map { $0.author == nil }
    }
    #expect(author == true)
  }

  @Test("With propagatesDeletesAtEndOfEvent false, delete rules run at save")
  func deletePropagatesAtSave() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    context.propagatesDeletesAtEndOfEvent = false
    let bookID = try await context.perform {
      let ann = Author(context: context)
      ann.name = "Ann"
      let book = Book(context: context)
      book.title = "Orphan"
      book.author = ann
      try context.save()
      context.delete(ann)
      return book.objectID
    }
    let (afterEvent, afterProcessing, afterSave) = try await context.perform {
      let book = try context.existingObject(with: bookID, as: Book.self)
      let afterEvent = book.author != nil
      context.processPendingChanges()
      let afterProcessing = book.author != nil
      try context.save()
      return (afterEvent, afterProcessing, book.author == nil)
    }
    #expect(afterEvent && afterProcessing, "only during a save operation")
    #expect(afterSave)
  }

  @Test("Relating objects of two contexts is refused and reported, as in Core Data")
  func crossContextRelationship() async throws {
    let container = makeContainer()
    let first = container.newBackgroundContext()
    first.name = "first"
    let second = container.newBackgroundContext()
    second.name = "second"
    let authorID = try await first.perform {
      let ann = Author(context: first)
      ann.name = "Ann"
      try first.save()
      return ann.objectID
    }
    try await first.perform {
      let ann = try first.existingObject(with: authorID, as: Author.self)
      let smuggled = Smuggled(ann)
      second.performAndWait {
        let book = Book(context: second)
        book.title = "Foreign"
        book.author = smuggled.value
        #expect(book.author == nil)
      }
      #expect(ann.books.isEmpty)
    }
    let violations = container.violations
    #expect(violations.count == 1, "\(violations)")
    #expect(violations.first?.kind == .foreignContext)
    #expect(violations.first?.property == "author")
  }

  /// `rollback()`: "discards all insertions and deletions, and restores updated objects to their
  /// last committed values". A move and a nullified delete rule changed three objects; all three
  /// come back, and the deleted author is no longer deleted.
  @Test("rollback undoes a move and a delete rule that already ran, on both sides")
  func rollbackRestoresBothSides() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let restored = try await context.perform {
      let (ann, book) = insertDune(in: context)
      let bob = Author(context: context)
      bob.name = "Bob"
      let other = Book(context: context)
      other.title = "Other"
      other.author = ann
      try context.save()
      book.author = bob
      context.delete(ann)
      context.processPendingChanges()
      let nullified = other.author == nil
      context.rollback()
      return (
        nullified, book.author === ann, other.author === ann, ann.books.count, bob.books.count,
        ann.isDeleted, context.hasChanges
      )
    }
    #expect(restored.0, "the delete rule ran before the rollback")
    #expect(restored.1 && restored.2 && restored.3 == 2 && restored.4 == 0, "\(restored)")
    #expect(!restored.5 && !restored.6)
  }
}
