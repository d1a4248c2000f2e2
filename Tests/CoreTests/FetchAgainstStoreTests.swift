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
}
