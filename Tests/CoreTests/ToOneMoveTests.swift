import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// Moving a book from one author to another in two contexts at once. Core Data keeps a to-many
/// side whose inverse is to-one as that side's foreign key, and "makes it easy for you to alter
/// relationships between managed objects without causing referential integrity errors" (Core
/// Data Programming Guide, "Relationships and Fetched Properties"): after any save an author
/// lists exactly the books whose `author` is that author. Whichever context's `author` the merge
/// policy keeps, the to-many sides follow it (Steps/Core/ManagedObjects/ToManyChanges.swift).
@Suite("Moving an object between owners in several contexts")
struct ToOneMoveTests {
  /// Ann, Bob and Carl, and a book by Ann, saved.
  struct Cast {
    let ann: ManagedObjectID
    let bob: ManagedObjectID
    let carl: ManagedObjectID
    let book: ManagedObjectID

    init(in container: PersistentContainer) async throws {
      let context = container.newBackgroundContext()
      (ann, bob, carl, book) = try await context.perform {
        let authors = ["Ann", "Bob", "Carl"].map { name in
          let author = Author(context: context)
          author.name = name
          return author
        }
        let book = Book(context: context)
        book.title = "Moved"
        book.author = authors[0]
        try context.save()
        return (authors[0].objectID, authors[1].objectID, authors[2].objectID, book.objectID)
      }
    }
  }

  /// The book's author and each author's books, as a fresh context reads them from the store.
  static func stored(
    _ cast: Cast, in container: PersistentContainer
  ) async throws -> (author: String?, books: [String: Int]) {
    let fresh = container.newBackgroundContext()
    return try await fresh.perform {
      let book = try fresh.existingObject(with: cast.book, as: Book.self)
      var books: [String: Int] = [:]
      for id in [cast.ann, cast.bob, cast.carl] {
        let author = try fresh.existingObject(with: id, as: Author.self)
        books[author.name] = author.books.count
      }
      return (book.author?.name, books)
    }
  }

  /// Two contexts read the book; the first moves it to Bob and saves, then the second, stale,
  /// moves it to Carl and saves under `policy`. Returns the second save's error, if any.
  static func concurrentMoves(
    _ cast: Cast, in container: PersistentContainer, policy: MergePolicy
  ) async throws -> PersistenceError? {
    let first = container.newBackgroundContext()
    let second = container.newBackgroundContext()
    first.retainsRegisteredObjects = true  // as an app holding it would
    second.retainsRegisteredObjects = true
    second.mergePolicy = policy
    for context in [first, second] {
      _ = try await context.perform { try context.existingObject(with: cast.book, as: Book.self) }
    }
    try await first.perform {
      let book = try first.existingObject(with: cast.book, as: Book.self)
      book.author = try first.existingObject(with: cast.bob, as: Author.self)
      try first.save()
    }
    return try await second.perform {
      let book = try second.existingObject(with: cast.book, as: Book.self)
      book.author = try second.existingObject(with: cast.carl, as: Author.self)
      return second.saveError()
    }
  }

  @Test(
    "The context's to-one wins, and only the new owner lists the object",
    arguments: [MergePolicy.mergeByPropertyObjectTrump, .overwrite])
  func contextWins(policy: MergePolicy) async throws {
    let container = makeContainer()
    let cast = try await Cast(in: container)
    #expect(try await Self.concurrentMoves(cast, in: container, policy: policy) == nil)
    let stored = try await Self.stored(cast, in: container)
    #expect(stored.author == "Carl")
    #expect(stored.books == ["Ann": 0, "Bob": 0, "Carl": 1])
  }

  @Test(
    "The store's to-one wins, and the owner the context chose does not list the object",
    arguments: [MergePolicy.mergeByPropertyStoreTrump, .rollback])
  func storeWins(policy: MergePolicy) async throws {
    let container = makeContainer()
    let cast = try await Cast(in: container)
    #expect(try await Self.concurrentMoves(cast, in: container, policy: policy) == nil)
    let stored = try await Self.stored(cast, in: container)
    #expect(stored.author == "Bob")
    #expect(stored.books == ["Ann": 0, "Bob": 1, "Carl": 0])
  }

  /// `NSMergeConflict`: a to-one relationship is in the snapshots ("attributes and to-one
  /// relationships"), so the conflict names it on both sides.
  @Test("Under .error the stale move conflicts on the moved object, naming the to-one")
  func errorNamesTheToOne() async throws {
    let container = makeContainer()
    let cast = try await Cast(in: container)
    let error = try await Self.concurrentMoves(cast, in: container, policy: .error)
    guard case .mergeConflict(let conflicts)? = error else {
      Issue.record("expected a merge conflict, got \(String(describing: error))")
      return
    }
    let book = conflicts.first { $0.objectID == cast.book }
    #expect(book?.changedInStore == ["author"] && book?.changedInContext == ["author"])
    let stored = try await Self.stored(cast, in: container)
    #expect(stored.author == "Bob")
    #expect(stored.books == ["Ann": 0, "Bob": 1, "Carl": 0])
  }

  /// A child's save is pushed into its parent's objects as they are (no optimistic locking
  /// between a child and its parent), so the child's `author` wins, and the parent's own pending
  /// move is replaced: the owner the parent chose no longer lists the book.
  @Test("A child's move over its parent's pending move: the parent's owner lets go of the object")
  func childMoveOverParentsPendingMove() async throws {
    let container = makeContainer()
    let cast = try await Cast(in: container)
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    _ = try await child.perform { try child.existingObject(with: cast.book, as: Book.self) }
    let bobLists = try await parent.perform {
      let book = try parent.existingObject(with: cast.book, as: Book.self)
      let bob = try parent.existingObject(with: cast.bob, as: Author.self)
      book.author = bob
      return bob.books.count
    }
    #expect(bobLists == 1)
    try await child.perform {
      let book = try child.existingObject(with: cast.book, as: Book.self)
      book.author = try child.existingObject(with: cast.carl, as: Author.self)
      try child.save()
    }
    let inParent = try await parent.perform {
      let book = try parent.existingObject(with: cast.book, as: Book.self)
      let bob = try parent.existingObject(with: cast.bob, as: Author.self)
      let carl = try parent.existingObject(with: cast.carl, as: Author.self)
      return (book.author?.name, bob.books.count, carl.books.count)
    }
    #expect(inParent.0 == "Carl" && inParent.1 == 0 && inParent.2 == 1, "\(inParent)")
    try await parent.perform { try parent.save() }
    let stored = try await Self.stored(cast, in: container)
    #expect(stored.author == "Carl")
    #expect(stored.books == ["Ann": 0, "Bob": 0, "Carl": 1])
  }

  @Test("Moving a book another context deleted: no author lists the deleted book")
  func moveOfDeletedObject() async throws {
    let container = makeContainer()
    let cast = try await Cast(in: container)
    let mover = container.newBackgroundContext()
    mover.retainsRegisteredObjects = true  // as an app holding it would
    mover.mergePolicy = .mergeByPropertyObjectTrump
    _ = try await mover.perform { try mover.existingObject(with: cast.book, as: Book.self) }
    try await container.performBackgroundTask { context in
      context.delete(try context.existingObject(with: cast.book))
      try context.save()
    }
    try await mover.perform {
      let book = try #require(mover.registeredObject(for: cast.book) as? Book)
      book.author = try mover.existingObject(with: cast.bob, as: Author.self)
      try mover.save()
    }
    let fresh = container.newBackgroundContext()
    let (books, count) = try await fresh.perform {
      let bob = try fresh.existingObject(with: cast.bob, as: Author.self)
      return (bob.books.count, try fresh.count(for: FetchRequest<Book>()))
    }
    #expect(count == 0)
    #expect(books == 0)
  }

  /// `updatedObjects`: "The set of objects registered with the context that have uncommitted
  /// changes": a move changes the book's `author` and both authors' `books`, so the save reports
  /// all three. A context that merges it refreshes what it has registered, and its graph follows
  /// (`mergeChanges(fromContextDidSave:)` "refreshes any objects which have been updated in the
  /// other context"); objects it never registered are not reported to its observers.
  @Test("A move is saved as three updated objects; a merge refreshes the registered ones")
  func moveIsSavedAndMerged() async throws {
    let container = makeContainer()
    let cast = try await Cast(in: container)
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    let heard = ObjectsDidChangeRecorder(reader)
    defer { heard.stop() }
    _ = try await reader.perform {
      try reader.existingObject(with: cast.ann, as: Author.self).books.count
    }
    let notes = container.saveNotifications()
    try await container.performBackgroundTask { context in
      let book = try context.existingObject(with: cast.book, as: Book.self)
      book.author = try context.existingObject(with: cast.bob, as: Author.self)
      try context.save()
    }
    let note = try await withTimeout(.seconds(20), "the save notification") {
      var iterator = notes.makeAsyncIterator()
      return await iterator.next()
    }
    #expect(note?.updatedObjectIDs == [cast.book, cast.ann, cast.bob])
    #expect(note?.insertedObjectIDs == [] && note?.deletedObjectIDs == [])
    let merged = try await reader.perform {
      reader.mergeChanges(fromContextDidSave: try #require(note))
      let ann = try reader.existingObject(with: cast.ann, as: Author.self)
      let book = try reader.existingObject(with: cast.book, as: Book.self)
      return (ann.books.count, book.author?.name)
    }
    #expect(merged.0 == 0 && merged.1 == "Bob", "\(merged)")
    #expect(heard.all.map(\.refreshedObjectIDs) == [[cast.ann, cast.book]])
  }

  /// Core Data runs delete rules at the end of the event, or with
  /// `propagatesDeletesAtEndOfEvent` false "only during a save operation"; a child's save is
  /// pushed into its parent as it is. A grandchild that deletes an author its book is not even
  /// registered in still nullifies the book's `author`, and each save carries that up a level.
  @Test("A grandchild's delete nullifies at its save, and every level up sees the book let go")
  func grandchildDeleteNullifies() async throws {
    let container = makeContainer()
    let cast = try await Cast(in: container)
    let root = container.newBackgroundContext()
    let middle = root.newChildContext()
    let leaf = middle.newChildContext()
    leaf.propagatesDeletesAtEndOfEvent = false
    let before = try await middle.perform {
      try middle.existingObject(with: cast.book, as: Book.self).author?.name
    }
    let (pending, registered) = try await leaf.perform {
      leaf.delete(try leaf.existingObject(with: cast.ann))
      return (leaf.hasChanges, leaf.registeredObject(for: cast.book) != nil)
    }
    try await leaf.perform { try leaf.save() }
    let inMiddle = try await middle.perform {
      let book = try middle.existingObject(with: cast.book, as: Book.self)
      return (book.author?.name, middle.deletedObjects.map(\.objectID), book.hasChanges)
    }
    #expect(before == "Ann" && pending && !registered)
    #expect(inMiddle.0 == nil && inMiddle.1 == [cast.ann] && inMiddle.2, "\(inMiddle)")
    try await middle.perform { try middle.save() }
    try await root.perform { try root.save() }
    let stored = try await container.performBackgroundTask { context in
      let book = try context.existingObject(with: cast.book, as: Book.self)
      return (book.author == nil, try context.count(for: FetchRequest<Author>()))
    }
    #expect(stored.0 && stored.1 == 2)
  }
}
