import Foundation
import ManagedObjectCore
import Testing

/// What a fetch matches when another context has saved since this one read an object.
///
/// Apple's `NSManagedObjectContext.fetch(_:)`: objects modified in the context are matched against
/// their modified state, and a deleted one is not matched; everything else is the store's answer.
/// `NSFetchRequest.shouldRefreshRefetchedObjects`: "By default when you fetch objects, they maintain
/// their current property values, even if the values in the persistent store have changed."
/// `NSFetchRequest.includesPendingChanges`: when false, the fetch "only returns objects that
/// matched the predicate in the persistent store".
@Suite("Fetches match the store's values for unmodified objects")
struct FetchAgainstStoreTests {
  /// A book of 412 pages registered in `reader`, then saved as 500 pages by another context.
  static func bookChangedElsewhere(
    _ container: PersistentContainer
  ) async throws -> (reader: ManagedObjectContext, id: ManagedObjectID) {
    let writer = container.newBackgroundContext()
    let id = try await writer.perform {
      let book = Book(context: writer)
      book.title = "Dune"
      book.pages = 412
      try writer.save()
      return book.objectID
    }
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    _ = try await reader.perform { try reader.existingObject(with: id, as: Book.self).pages }
    try await writer.perform {
      try writer.existingObject(with: id, as: Book.self).pages = 500
      try writer.save()
    }
    return (reader, id)
  }

  static func pages(_ count: Int) -> FetchRequest<Book> {
    FetchRequest(predicate: #Predicate<Book> { $0.pages == count })
  }

  @Test("An unmodified registered object is matched by the store's values, and keeps its own")
  func unmodifiedObjectMatchesTheStore() async throws {
    let container = makeContainer()
    let (reader, id) = try await Self.bookChangedElsewhere(container)
    let result = try await reader.perform {
      let now = try reader.fetch(Self.pages(500))
      let before = try reader.fetch(Self.pages(412))
      return (
        now.map(\.objectID), now.map(\.pages), before.count,
        try reader.count(for: Self.pages(500)), try reader.fetchObjectIDs(Self.pages(500))
      )
    }
    #expect(result.0 == [id], "the store holds 500 pages")
    #expect(result.1 == [412], "the registered object keeps the values it had")
    #expect(result.2 == 0)
    #expect(result.3 == 1 && result.4 == [id])
  }

  @Test("A modified object is matched against its modified state")
  func modifiedObjectMatchesItsChanges() async throws {
    let container = makeContainer()
    let (reader, id) = try await Self.bookChangedElsewhere(container)
    let (mine, stores) = try await reader.perform {
      try reader.existingObject(with: id, as: Book.self).pages = 600
      return (try reader.fetch(Self.pages(600)).count, try reader.fetch(Self.pages(500)).count)
    }
    #expect(mine == 1 && stores == 0)
  }

  @Test("shouldRefreshRefetchedObjects brings the store's values in and keeps unsaved changes")
  func refreshRefetched() async throws {
    let container = makeContainer()
    let (reader, id) = try await Self.bookChangedElsewhere(container)
    let (pages, note) = try await reader.perform {
      try reader.existingObject(with: id, as: Book.self).note = "mine"
      let request = FetchRequest<Book>()
      request.shouldRefreshRefetchedObjects = true
      let book = try #require(try reader.fetch(request).first)
      return (book.pages, book.note)
    }
    #expect(pages == 500 && note == "mine")
  }

  @Test("Without includesPendingChanges, only what the store holds counts")
  func withoutPendingChanges() async throws {
    let container = makeContainer()
    let (reader, id) = try await Self.bookChangedElsewhere(container)
    let found = try await reader.perform {
      let book = try reader.existingObject(with: id, as: Book.self)
      book.pages = 600
      let added = Book(context: reader)
      added.title = "new"
      added.pages = 500
      let request = Self.pages(500)
      request.includesPendingChanges = false
      let storeOnly = try reader.fetch(request).map(\.title)
      reader.delete(book)
      let afterDelete = try reader.fetch(request).map(\.title)
      let withPending = try reader.fetch(Self.pages(500)).map(\.title)
      return (storeOnly, afterDelete, withPending)
    }
    #expect(found.0 == ["Dune"], "judged by the store, not by the unsaved 600; the insert unseen")
    #expect(found.1 == ["Dune"], "a pending deletion is still in the store")
    #expect(found.2 == ["new"], "with pending changes: the deletion hides Dune, the insert shows")
  }

  /// Apple, Persistent Store Types and Behaviors, "Fetch Predicates and Sort Descriptors": the
  /// SQL store "compiles the predicate and sort descriptors to SQL and evaluates the result in
  /// the database itself", so an unmodified object is ordered by the row, not by the older values
  /// it keeps.
  @Test("An unmodified registered object is sorted by the store's values, before the window")
  func unmodifiedObjectSortsByTheStore() async throws {
    let container = makeContainer()
    let (reader, id) = try await Self.bookChangedElsewhere(container)
    try await container.performBackgroundTask { context in
      let other = Book(context: context)
      other.title = "Emma"
      other.pages = 450
      try context.save()
    }
    let (titles, pages, first) = try await reader.perform {
      let byPages = [SortDescriptor<Book>(\.pages)]
      let books = try reader.fetch(FetchRequest(sortDescriptors: byPages))
      let first = try reader.fetch(FetchRequest(sortDescriptors: byPages, fetchLimit: 1))
      return (books.map(\.title), books.map(\.pages), first.map(\.objectID))
    }
    #expect(titles == ["Emma", "Dune"], "the store holds 500 pages for Dune")
    #expect(pages == [450, 412], "the registered object keeps the values it had")
    #expect(first != [id])
  }

  /// `fetch(_:)`: "If an object in a context has been modified, a predicate is evaluated against
  /// its modified state"; an unmodified one is the store's answer, and the store joins the
  /// related row as saved, not a related object's unsaved values.
  @Test("A predicate through a relationship reads the related row for an unmodified object")
  func relationshipPredicateReadsTheStore() async throws {
    let container = makeContainer()
    try await container.performBackgroundTask { context in
      let ann = Author(context: context)
      ann.name = "Ann"
      for title in ["A", "B"] {
        let book = Book(context: context)
        book.title = title
        book.author = ann
      }
      try context.save()
    }
    let context = container.newBackgroundContext()
    let found = try await context.perform {
      let byAnn = FetchRequest<Book>(predicate: #Predicate { $0.author?.name == "Ann" })
      let books = try context.fetch(FetchRequest<Book>(sortDescriptors: [SortDescriptor(\.title)]))
      books[0].author?.name = "Bob"  // the author changes; book A itself does not
      let unmodified = try context.fetch(byAnn).map(\.title).sorted()
      let counted = try context.count(for: byAnn)
      books[1].title = "B2"  // now book B is modified: judged in memory, author "Bob"
      let modified = try context.fetch(byAnn).map(\.title)
      let storeOnly = FetchRequest<Book>(predicate: #Predicate { $0.author?.name == "Ann" })
      storeOnly.includesPendingChanges = false
      return (unmodified, counted, modified, try context.fetch(storeOnly).count)
    }
    #expect(found.0 == ["A", "B"], "the store still holds Ann")
    #expect(found.1 == 2)
    #expect(found.2 == ["A"], "book B2 is matched against its modified state")
    #expect(found.3 == 2, "without pending changes, only the store counts")
  }

  @Test("A registered object whose row another context deleted is neither fetched nor counted")
  func rowDeletedElsewhere() async throws {
    let container = makeContainer()
    let (reader, id) = try await Self.bookChangedElsewhere(container)
    try await container.performBackgroundTask { context in
      context.delete(try context.existingObject(with: id))
      try context.save()
    }
    let (fetched, counted) = try await reader.perform {
      (try reader.fetch(FetchRequest<Book>()).count, try reader.count(for: FetchRequest<Book>()))
    }
    #expect(fetched == 0 && counted == 0)
  }

  @Test("Without includesPendingChanges, count and object IDs agree with the fetch")
  func storeOnlyCountsAgree() async throws {
    let container = makeContainer()
    let (reader, id) = try await Self.bookChangedElsewhere(container)
    let (titles, ids, count) = try await reader.perform {
      reader.delete(try reader.existingObject(with: id))
      Book(context: reader).title = "new"
      let request = FetchRequest<Book>()
      request.includesPendingChanges = false
      return (
        try reader.fetch(request).map(\.title), try reader.fetchObjectIDs(request),
        try reader.count(for: request)
      )
    }
    #expect(titles == ["Dune"] && ids == [id] && count == 1)
  }
}
