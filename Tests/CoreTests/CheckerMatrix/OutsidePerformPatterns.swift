import Foundation
import ManagedObjectCore
import WorkshopSupport

// Illegal: outside perform. Two legal rows stand among them: a child context and a batch update,
// each used inside its perform, next to the same use outside.

extension AccessPattern {
  static let outsidePerformPatterns: [AccessPattern] = [
    .illegal(
      "batch insert outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block")
    ) { f in
      try f.a.execute(BatchInsertRequest<Book>(objects: [["title": "Batched"]]))
      let count = try await f.b.perform { try f.b.count(for: FetchRequest<Book>()) }
      try check(count == 2, "the recorded batch insert did not carry on: \(count) books")
    },
    .illegal(
      "batch update outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block")
    ) { f in
      try f.a.execute(BatchUpdateRequest<Book>(propertiesToUpdate: ["pages": 2]))
    },
    .illegal(
      "batch delete outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block")
    ) { f in
      try f.a.execute(BatchDeleteRequest(fetchRequest: FetchRequest<Book>()))
    },
    .illegal(
      "dictionary fetch outside perform",
      .init(.outsidePerform, .fetch, "Book", in: "A", at: "outside any perform block")
    ) { f in
      let rows = try f.a.fetchDictionaries(FetchRequest<Book>())
      try check(rows.count == 1, "the recorded fetch returned \(rows.count) rows")
    },
    .illegal(
      "child context save outside perform",
      .init(.outsidePerform, .save, nil, in: "child of A", at: "outside any perform block")
    ) { f in
      let child = f.a.newChildContext()
      child.name = "child of A"
      try child.save()
    },
    .legal("child context made and saved inside its perform, parent saved in its own") { f in
      let child = f.a.newChildContext()
      try await child.perform {
        Book(context: child).title = "from the child"
        try child.save()
      }
      try await f.a.perform { try f.a.save() }
      let count = try await f.b.perform { try f.b.count(for: FetchRequest<Book>()) }
      try check(count == 2, "the store holds \(count) books instead of 2")
    },
    .legal("batch update inside perform") { f in
      let updated = try await f.a.perform {
        try f.a.execute(
          BatchUpdateRequest<Book>(propertiesToUpdate: ["pages": 1])
        ).count
      }
      try check(updated == nil, "a status-only result reported a count")
    },
    .illegal(
      "attribute get outside perform",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A",
        at: "in a Swift task", "outside any perform block")
    ) { f in
      let title = f.book.title
      try check(title == "Dune", "the checked read returned '\(title)'")
    },
    .illegal(
      "attribute set outside perform",
      .init(.outsidePerform, .write, "Book", "pages", in: "A", at: "outside any perform block")
    ) { f in
      f.book.pages = 1
      let pages = await f.a.perform { f.book.pages }
      try check(pages == 1, "the recorded write did not carry on: \(pages) pages")
    },
    .illegal(
      "insert with init(context:) outside perform",
      .init(.outsidePerform, .insert, "Book", in: "A")
    ) { f in
      _ = Book(context: f.a)
    },
    .illegal(
      "insertNewObject outside perform", .init(.outsidePerform, .insert, "Author", in: "A")
    ) { f in
      f.a.insertNewObject(of: Author.self)
    },
    .illegal("delete outside perform", .init(.outsidePerform, .delete, "Book", in: "A")) { f in
      f.a.delete(f.book)
    },
    .illegal(
      "fetch with a predicate outside perform", .init(.outsidePerform, .fetch, "Book", in: "A")
    ) { f in
      let found = try f.a.fetch(FetchRequest<Book>(predicate: #Predicate<Book> { $0.pages > 100 }))
      try check(found.count == 1, "fetched \(found.count) books")
    },
    .illegal(
      "fetchObjectIDs with a sort outside perform",
      .init(.outsidePerform, .fetch, "Book", in: "A")
    ) { f in
      let ids = try f.a.fetchObjectIDs(
        FetchRequest<Book>(sortDescriptors: [SortDescriptor(\Book.title)]))
      try check(ids == [f.book.objectID], "fetched \(ids)")
    },
    .illegal("count outside perform", .init(.outsidePerform, .count, "Author", in: "A")) { f in
      let count = try f.a.count(for: FetchRequest<Author>())
      try check(count == 1, "counted \(count)")
    },
    .illegal("save outside perform", .init(.outsidePerform, .save, nil, in: "A")) { f in
      let id = f.book.objectID
      await f.a.perform { f.book.pages = 1 }
      try f.a.save()
      let stored = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      try check(stored == 1, "the recorded save did not reach the store: \(stored) pages")
    },
    .illegal("rollback outside perform", .init(.outsidePerform, .rollback, nil, in: "A")) { f in
      await f.a.perform { f.book.pages = 1 }
      f.a.rollback()
    },
    .illegal("reset outside perform", .init(.outsidePerform, .reset, nil, in: "A")) { f in
      f.a.reset()
    },
    .illegal("refresh outside perform", .init(.outsidePerform, .refresh, "Book", in: "A")) {
      f in
      f.a.refresh(f.book, mergeChanges: true)
    },
    .illegal(
      "existingObject outside perform", .init(.outsidePerform, .existingObject, "Book", in: "B")
    ) { f in
      _ = try f.b.existingObject(with: f.book.objectID)
    },
    .illegal(
      "obtainPermanentIDs outside perform",
      .init(.outsidePerform, .obtainPermanentIDs, nil, in: "A")
    ) { f in
      let fresh = await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        return book
      }
      f.a.obtainPermanentIDs(for: [fresh])
    },
    .illegal(
      "isInserted outside perform", .init(.outsidePerform, .inspectChanges, "Book", in: "A")
    ) { f in
      _ = f.book.isInserted
    },
    .illegal(
      "isDeleted outside perform", .init(.outsidePerform, .inspectChanges, "Book", in: "A")
    ) { f in
      _ = f.book.isDeleted
    },
    .illegal(
      "isUpdated outside perform", .init(.outsidePerform, .inspectChanges, "Book", in: "A")
    ) { f in
      _ = f.book.isUpdated
    },
    .illegal(
      "object hasChanges outside perform",
      .init(.outsidePerform, .inspectChanges, "Author", in: "A")
    ) { f in
      _ = f.author.hasChanges
    },
    .illegal(
      "changedValues outside perform", .init(.outsidePerform, .inspectChanges, "Book", in: "A")
    ) { f in
      _ = f.book.changedValues()
    },
    .illegal(
      "context hasChanges outside perform", .init(.outsidePerform, .inspectChanges, nil, in: "A")
    ) { f in
      _ = f.a.hasChanges
    },
    .illegal(
      "registeredObjects outside perform", .init(.outsidePerform, .inspectChanges, nil, in: "A")
    ) { f in
      _ = f.a.registeredObjects
    },
    .illegal(
      "to-one relationship get outside perform",
      .init(.outsidePerform, .read, "Book", "author", in: "A")
    ) { f in
      _ = f.book.author
    },
    .illegal(
      "to-many relationship get outside perform",
      .init(.outsidePerform, .read, "Author", "books", in: "A")
    ) { f in
      _ = f.author.books
    },
    .illegal(
      "to-one relationship set outside perform",
      .init(.outsidePerform, .write, "Book", "author", in: "A")
    ) { f in
      f.book.author = nil
    },
    .illegal(
      "to-many relationship set outside perform",
      .init(.outsidePerform, .write, "Author", "books", in: "A")
    ) { f in
      f.author.books = []
    },
    .illegal(
      "mergeChanges outside perform", .init(.outsidePerform, .mergeChanges, nil, in: "B")
    ) { f in
      var notes = f.container.saveNotifications().makeAsyncIterator()
      try await f.a.perform {
        f.book.pages = 600
        try f.a.save()
      }
      guard let note = await notes.next() else { throw PatternFailure("no save notification") }
      f.b.mergeChanges(fromContextDidSave: note)
    },
    .illegal(
      "object(with:) outside perform", .init(.outsidePerform, .objectWithID, "Book", in: "B")
    ) { f in
      _ = f.b.object(with: f.book.objectID)
    },
    .illegal(
      "registeredObject(for:) outside perform",
      .init(.outsidePerform, .registeredObject, "Book", in: "A")
    ) { f in
      let found = f.a.registeredObject(for: f.book.objectID)
      try check(found === f.book, "the recorded look-up did not carry on")
    },
    .illegal(
      "refreshAllObjects outside perform",
      .init(.outsidePerform, .refreshAllObjects, nil, in: "A")
    ) { f in
      f.a.refreshAllObjects()
    },
    .illegal(
      "processPendingChanges outside perform",
      .init(.outsidePerform, .processPendingChanges, nil, in: "A")
    ) { f in
      f.a.processPendingChanges()
    },
    .illegal(
      "insertedObjects outside perform", .init(.outsidePerform, .inspectChanges, nil, in: "A")
    ) { f in
      _ = f.a.insertedObjects
    },
    .illegal(
      "updatedObjects outside perform", .init(.outsidePerform, .inspectChanges, nil, in: "A")
    ) { f in
      _ = f.a.updatedObjects
    },
    .illegal(
      "deletedObjects outside perform", .init(.outsidePerform, .inspectChanges, nil, in: "A")
    ) { f in
      _ = f.a.deletedObjects
    },
  ]
}
