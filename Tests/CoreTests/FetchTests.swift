import Foundation
import ManagedObjectCore
import Testing

@Suite("Fetching")
struct FetchTests {
  /// Saves books titled "Book 0" … with `pages` = index × 10, and returns the container.
  private func library(_ count: Int = 10) async throws -> PersistentContainer {
    let container = makeContainer("library")
    let context = container.newBackgroundContext()
    try await context.perform {
      for index in 0..<count {
        let book = Book(context: context)
        book.title = "Book \(index)"
        book.pages = index * 10
      }
      try context.save()
    }
    return container
  }

  @Test("A #Predicate filters, SortDescriptors order, fetchOffset and fetchLimit take a window")
  func predicateSortWindow() async throws {
    let container = try await library()
    let context = container.newBackgroundContext()
    let titles = try await context.perform {
      let request = FetchRequest<Book>(
        predicate: #Predicate { $0.pages >= 30 },
        sortDescriptors: [SortDescriptor(\.pages, order: .reverse)],
        fetchLimit: 3, fetchOffset: 1)
      return try context.fetch(request).map(\.title)
    }
    #expect(titles == ["Book 8", "Book 7", "Book 6"])
  }

  @Test("Unsorted results come in store order, windowed the same way")
  func storeOrderWindow() async throws {
    let container = try await library()
    let context = container.newBackgroundContext()
    let titles = try await context.perform {
      try context.fetch(FetchRequest<Book>(fetchLimit: 2, fetchOffset: 3)).map(\.title)
    }
    #expect(titles == ["Book 3", "Book 4"])
  }

  @Test("Object IDs and counts answer without materializing objects")
  func objectIDsAndCount() async throws {
    let container = try await library()
    let context = container.newBackgroundContext()
    let (ids, count, registered) = try await context.perform {
      let request = FetchRequest<Book>(predicate: #Predicate { $0.pages < 50 })
      return (
        try context.fetchObjectIDs(request), try context.count(for: request),
        context.registeredObjects.count
      )
    }
    #expect(ids.count == 5)
    #expect(ids.allSatisfy { !$0.isTemporaryID && $0.entityName == "Book" })
    #expect(count == 5)
    #expect(registered == 0)
  }

  @Test("A fetch sees the context's pending inserts, edits and deletes")
  func pendingChanges() async throws {
    let container = try await library(3)
    let context = container.newBackgroundContext()
    let titles = try await context.perform {
      let all = try context.fetch(FetchRequest<Book>(sortDescriptors: [SortDescriptor(\.title)]))
      context.delete(all[0])
      all[1].title = "Renamed"
      let new = Book(context: context)
      new.title = "Unsaved"
      return try context.fetch(
        FetchRequest<Book>(
          predicate: #Predicate { $0.title != "Book 2" }, sortDescriptors: [SortDescriptor(\.title)]
        )
      ).map(\.title)
    }
    #expect(titles == ["Renamed", "Unsaved"])
  }

  @Test("Fetching the same row twice gives the same object (uniquing)")
  func uniquing() async throws {
    let container = try await library(2)
    let context = container.newBackgroundContext()
    let same = try await context.perform {
      let first = try context.fetch(FetchRequest<Book>())
      let second = try context.fetch(FetchRequest<Book>())
      return zip(first, second).allSatisfy { $0 === $1 }
    }
    #expect(same)
  }

  @Test("Predicates can follow relationships")
  func predicateThroughRelationship() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let titles = try await context.perform {
      let ann = Author(context: context)
      ann.name = "Ann"
      let bob = Author(context: context)
      bob.name = "Bob"
      for (title, author) in [("A", ann), ("B", bob), ("C", ann)] {
        let book = Book(context: context)
        book.title = title
        book.author = author
      }
      try context.save()
      context.reset()
      return try context.fetch(
        FetchRequest<Book>(
          predicate: #Predicate { $0.author?.name == "Ann" },
          sortDescriptors: [SortDescriptor(\.title)])
      ).map(\.title)
    }
    #expect(titles == ["A", "C"])
    #expect(container.violations.isEmpty)
  }

  @Test(
    "A pending object whose required attribute is unset matches no predicate, and does not crash")
  func pendingObjectMissingRequiredValue() async throws {
    let container = try await library(2)
    let context = container.newBackgroundContext()
    let (matched, all) = try await context.perform {
      _ = Book(context: context)  // title not set yet
      return (
        try context.fetch(FetchRequest<Book>(predicate: #Predicate { $0.title != "" })).count,
        try context.count(for: FetchRequest<Book>())
      )
    }
    #expect(matched == 2)
    #expect(all == 3)
  }

  /// Apple's `fetch(_:)`: pending inserts that match are found, deleted objects are not, and a
  /// modified object is matched against its modified state; the sort and the window apply to
  /// that whole result, and `count(for:)` counts what `fetch(_:)` returns.
  @Test("Sort, offset and limit apply over pending changes; count and IDs agree with the fetch")
  func windowOverPendingChanges() async throws {
    let container = try await library(5)
    let context = container.newBackgroundContext()
    let (titles, ids, counts) = try await context.perform {
      let all = try context.fetch(FetchRequest<Book>(sortDescriptors: [SortDescriptor(\.pages)]))
      all[4].pages = 5
      context.delete(all[1])
      let new = Book(context: context)
      new.title = "New"
      new.pages = 15
      let sorted = FetchRequest<Book>(
        predicate: #Predicate { $0.pages > 0 }, sortDescriptors: [SortDescriptor(\.pages)],
        fetchLimit: 3, fetchOffset: 1)
      let unsorted = FetchRequest<Book>(
        predicate: #Predicate { $0.pages > 0 }, fetchLimit: 3, fetchOffset: 1)
      return (
        try context.fetch(sorted).map(\.title), try context.fetchObjectIDs(sorted).count,
        [try context.count(for: sorted), try context.count(for: unsorted)]
      )
    }
    // Over 0 pages: Book 4 (5), New (15), Book 2 (20), Book 3 (30); Book 1 is deleted.
    #expect(titles == ["New", "Book 2", "Book 3"])
    #expect(ids == 3 && counts == [3, 3])
  }

  @Test(
    "A batched fetch sees pending changes: the insert found, the deletion and the edit left out")
  func batchedFetchOverPendingChanges() async throws {
    let container = try await library(6)
    let context = container.newBackgroundContext()
    let titles = try await context.perform {
      let first = try context.fetch(FetchRequest<Book>(fetchLimit: 2))
      context.delete(first[0])
      first[1].pages = 1000
      Book(context: context).title = "New"
      let request = FetchRequest<Book>(predicate: #Predicate { $0.pages < 100 })
      request.fetchBatchSize = 2
      return try context.fetch(request).map(\.title)
    }
    #expect(titles == ["Book 2", "Book 3", "Book 4", "Book 5", "New"])
  }
}
