import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Core Data derives a to-many side from its inverse, so an addition made in one context is never
/// lost to another context's save: "Core Data Programming Guide › Creating Managed Object
/// Relationships" (a to-many relationship is maintained through its inverse), and
/// `NSMergeConflict`'s snapshots, which hold "attributes and to-one relationships" only. The core
/// writes a to-many side as the additions and removals a context made
/// (Steps/Core/ManagedObjects/ToManyChanges.swift).
@Suite("To-many relationships keep every context's additions")
struct ToManyChangesTests {
  /// An author saved with the books titled `titles`; returns the author's ID.
  static func savedAuthor(
    _ titles: [String] = [], in container: PersistentContainer
  ) async throws -> ManagedObjectID {
    let context = container.newBackgroundContext()
    return try await context.perform {
      let author = Author(context: context)
      author.name = "Ann"
      for title in titles {
        let book = Book(context: context)
        book.title = title
        book.author = author
      }
      try context.save()
      return author.objectID
    }
  }

  /// The author's books, by title, and each book's author, as a fresh context reads them.
  static func stored(
    _ authorID: ManagedObjectID, in container: PersistentContainer
  ) async throws -> (books: Set<String>, booksNamingTheAuthor: Set<String>) {
    let fresh = container.newBackgroundContext()
    return try await fresh.perform {
      let author = try fresh.existingObject(with: authorID, as: Author.self)
      let naming = try fresh.fetch(FetchRequest<Book>()).filter { $0.author == author }
      return (Set(author.books.map(\.title)), Set(naming.map(\.title)))
    }
  }

  /// Two contexts read the author; each adds a book in its own context. Returns the contexts.
  static func twoContextsAddABook(
    to authorID: ManagedObjectID, in makeContext: () -> ManagedObjectContext
  ) async throws -> (ManagedObjectContext, ManagedObjectContext) {
    let first = makeContext()
    let second = makeContext()
    for (context, title) in [(first, "first"), (second, "second")] {
      try await context.perform {
        let author = try context.existingObject(with: authorID, as: Author.self)
        let book = Book(context: context)
        book.title = title
        book.author = author
      }
    }
    return (first, second)
  }

  @Test("Two contexts that each add a book to one author both keep their book in the store")
  func twoContextsAdd() async throws {
    let container = makeContainer()
    let authorID = try await Self.savedAuthor(in: container)
    let (first, second) = try await Self.twoContextsAddABook(to: authorID) {
      container.newBackgroundContext()
    }
    try await first.perform { try first.save() }
    second.mergePolicy = .mergeByPropertyObjectTrump
    let inSecond = try await second.perform {
      try second.save()
      return Set(try second.existingObject(with: authorID, as: Author.self).books.map(\.title))
    }
    let stored = try await Self.stored(authorID, in: container)
    #expect(stored.books == ["first", "second"])
    #expect(stored.booksNamingTheAuthor == ["first", "second"])
    #expect(inSecond == ["first", "second"], "the saving context sees the row it wrote")
  }

  @Test("Under .error the second save conflicts, and the conflict names no to-many relationship")
  func twoContextsAddUnderError() async throws {
    let container = makeContainer()
    let authorID = try await Self.savedAuthor(in: container)
    let (first, second) = try await Self.twoContextsAddABook(to: authorID) {
      container.newBackgroundContext()
    }
    try await first.perform { try first.save() }
    let error = await second.perform { second.saveError() }
    guard case .mergeConflict(let conflicts)? = error else {
      Issue.record("expected a merge conflict, got \(String(describing: error))")
      return
    }
    let author = conflicts.first { $0.objectID == authorID }
    #expect(author?.changedInStore == [] && author?.changedInContext == [], "\(conflicts)")
  }

  @Test("Under .rollback the store's values win, and the other context's book is still listed")
  func twoContextsAddUnderRollback() async throws {
    let container = makeContainer()
    let authorID = try await Self.savedAuthor(in: container)
    let (first, second) = try await Self.twoContextsAddABook(to: authorID) {
      container.newBackgroundContext()
    }
    try await first.perform { try first.save() }
    second.mergePolicy = .rollback
    try await second.perform { try second.save() }
    let stored = try await Self.stored(authorID, in: container)
    #expect(stored.books == ["first", "second"])
    #expect(stored.booksNamingTheAuthor == ["first", "second"])
  }

  @Test("Two child contexts that each add a book to one author both keep it in the parent")
  func twoChildrenAdd() async throws {
    let container = makeContainer()
    let authorID = try await Self.savedAuthor(in: container)
    let parent = container.newBackgroundContext()
    let (first, second) = try await Self.twoContextsAddABook(to: authorID) {
      parent.newChildContext()
    }
    try await first.perform { try first.save() }
    try await second.perform { try second.save() }
    try await parent.perform { try parent.save() }
    let stored = try await Self.stored(authorID, in: container)
    #expect(stored.books == ["first", "second"])
    #expect(stored.booksNamingTheAuthor == ["first", "second"])
  }

  @Test("A removal in one context and an addition in another both apply")
  func removalAndAddition() async throws {
    let container = makeContainer()
    let authorID = try await Self.savedAuthor(["kept", "taken"], in: container)
    let remover = container.newBackgroundContext()
    let adder = container.newBackgroundContext()
    try await remover.perform {
      let author = try remover.existingObject(with: authorID, as: Author.self)
      author.books.first { $0.title == "taken" }?.author = nil
    }
    try await adder.perform {
      let book = Book(context: adder)
      book.title = "added"
      book.author = try adder.existingObject(with: authorID, as: Author.self)
    }
    remover.mergePolicy = .mergeByPropertyObjectTrump
    adder.mergePolicy = .mergeByPropertyObjectTrump
    try await adder.perform { try adder.save() }
    try await remover.perform { try remover.save() }
    let stored = try await Self.stored(authorID, in: container)
    #expect(stored.books == ["kept", "added"])
    #expect(stored.booksNamingTheAuthor == ["kept", "added"])
  }

  @Test("Merging another context's save keeps this context's pending addition, and saves both")
  func mergeKeepsPendingAddition() async throws {
    let container = makeContainer()
    let authorID = try await Self.savedAuthor(in: container)
    let (writer, reader) = try await Self.twoContextsAddABook(to: authorID) {
      container.newBackgroundContext()
    }
    try await writer.perform { try writer.save() }
    let saved = try await Self.stored(authorID, in: container)
    #expect(saved.books == ["first"])
    let merged = try await reader.perform {
      // What `mergeChanges(fromContextDidSave:)` does for an updated object: read its row again
      // and lay the pending changes on top.
      let author = try reader.existingObject(with: authorID, as: Author.self)
      reader.refresh(author, mergeChanges: true)
      return Set(author.books.map(\.title))
    }
    #expect(merged == ["first", "second"])
    reader.mergePolicy = .mergeByPropertyObjectTrump
    try await reader.perform { try reader.save() }
    let stored = try await Self.stored(authorID, in: container)
    #expect(stored.books == ["first", "second"])
  }
}
