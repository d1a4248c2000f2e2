import Foundation
import ManagedObjectCore
import WorkshopSupport

// Legal patterns: each access inside the perform of the context it belongs to.

extension AccessPattern {
  static let legalPatterns: [AccessPattern] = [
    .legal("attribute get inside perform") { f in
      let title = await f.a.perform { f.book.title }
      try check(title == "Dune", "read '\(title)' instead of 'Dune'")
    },
    .legal("attribute set inside perform, then save") { f in
      let id = f.book.objectID
      try await f.a.perform {
        f.book.pages = 500
        try f.a.save()
      }
      let stored = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      try check(stored == 500, "the store holds \(stored) pages instead of 500")
    },
    .legal("insert inside perform") { f in
      let count = try await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        let author = f.a.insertNewObject(of: Author.self)
        author.name = "Jane Austen"
        book.author = author
        try f.a.save()
        return try f.a.count(for: FetchRequest<Book>())
      }
      try check(count == 2, "counted \(count) books instead of 2")
    },
    .legal("delete inside perform, then save") { f in
      let (wasDeleted, remaining) = try await f.a.perform {
        f.a.delete(f.book)
        let wasDeleted = f.book.isDeleted
        try f.a.save()
        return (wasDeleted, try f.a.count(for: FetchRequest<Book>()))
      }
      try check(wasDeleted, "isDeleted was false after delete")
      try check(remaining == 0, "\(remaining) books remain after the deletion was saved")
    },
    .legal("fetch with predicate and sort inside perform") { f in
      let titles = try await f.a.perform {
        for title in ["Emma", "Beloved"] {
          let book = Book(context: f.a)
          book.title = title
          book.pages = 300
        }
        let request = FetchRequest<Book>(
          predicate: #Predicate<Book> { $0.pages < 400 },
          sortDescriptors: [SortDescriptor(\Book.title)])
        return try f.a.fetch(request).map(\.title)
      }
      try check(titles == ["Beloved", "Emma"], "fetched \(titles)")
    },
    .legal("count inside another context's perform") { f in
      let count = try await f.b.perform { try f.b.count(for: FetchRequest<Author>()) }
      try check(count == 1, "counted \(count) authors instead of 1")
    },
    .legal("rollback inside perform") { f in
      let pages = await f.a.perform {
        f.book.pages = 1
        f.a.rollback()
        return f.book.pages
      }
      try check(pages == 412, "rollback left \(pages) pages instead of 412")
    },
    .legal("reset inside perform, then refetch by objectID") { f in
      let id = f.book.objectID
      let title = try await f.a.perform {
        f.a.reset()
        return try f.a.existingObject(with: id, as: Book.self).title
      }
      try check(title == "Dune", "refetched '\(title)'")
    },
    .legal("refresh inside perform") { f in
      let id = f.book.objectID
      try await f.b.perform {
        try f.b.existingObject(with: id, as: Book.self).pages = 999
        try f.b.save()
      }
      let pages = await f.a.perform {
        f.a.refresh(f.book, mergeChanges: false)
        return f.book.pages
      }
      try check(pages == 999, "refresh left \(pages) pages instead of 999")
    },
    .legal("existingObject in another context inside its perform") { f in
      let id = f.book.objectID
      let (title, isB) = try await f.b.perform {
        let book = try f.b.existingObject(with: id, as: Book.self)
        return (book.title, book.managedObjectContext === f.b)
      }
      try check(title == "Dune" && isB, "refetched '\(title)', belongs to B: \(isB)")
    },
    .legal(
      "existingObject with another context's temporary ID throws, not a violation"
    ) { f in
      let temporary = await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        return book.objectID
      }
      let error = await existingObjectError(temporary, in: f.b)
      try check(
        error == .temporaryIDOutsideItsContext(temporary), "threw \(String(describing: error))")
    },
    .legal("obtainPermanentIDs inside perform") { f in
      let (before, after) = await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        let before = book.objectID.isTemporaryID
        f.a.obtainPermanentIDs(for: [book])
        return (before, book.objectID.isTemporaryID)
      }
      try check(before && !after, "temporary before: \(before), after: \(after)")
    },
    .legal("isInserted, isUpdated, isDeleted, hasChanges, changedValues inside perform") { f in
      let problems = await f.a.perform {
        var problems: [String] = []
        let fresh = Book(context: f.a)
        fresh.title = "Emma"
        f.book.pages = 413
        if !fresh.isInserted { problems.append("a new object is not isInserted") }
        if f.book.isDeleted { problems.append("an updated object is isDeleted") }
        if !f.book.isUpdated || fresh.isUpdated { problems.append("isUpdated is wrong") }
        if !f.book.hasChanges { problems.append("an updated object has no changes") }
        if !f.a.hasChanges { problems.append("the context has no changes") }
        let changed = f.book.changedValues()
        if changed["pages"] as? Int != 413 || changed.count != 1 {
          problems.append("changedValues() is \(changed)")
        }
        if f.a.insertedObjects != [fresh] { problems.append("insertedObjects is wrong") }
        if f.a.updatedObjects != [f.book] { problems.append("updatedObjects is wrong") }
        if !f.a.deletedObjects.isEmpty { problems.append("deletedObjects is not empty") }
        return problems
      }
      try check(problems.isEmpty, problems.joined(separator: "; "))
    },
    .legal("relationship get and set inside perform") { f in
      let problems = await f.a.perform {
        var problems: [String] = []
        if f.book.author !== f.author { problems.append("book.author is not the saved author") }
        let other = Author(context: f.a)
        other.name = "Brian Herbert"
        f.book.author = other
        if f.book.author !== other { problems.append("book.author was not set") }
        if other.books != [f.book] { problems.append("the new inverse was not set") }
        if !f.author.books.isEmpty { problems.append("the old inverse was not cleared") }
        return problems
      }
      try check(problems.isEmpty, problems.joined(separator: "; "))
    },
    .legal("merging a save notification inside perform") { f in
      let id = f.book.objectID
      _ = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      var notes = f.container.saveNotifications().makeAsyncIterator()
      try await f.a.perform {
        f.book.pages = 600
        try f.a.save()
      }
      guard let note = await notes.next() else { throw PatternFailure("no save notification") }
      let pages = try await f.b.perform {
        f.b.mergeChanges(fromContextDidSave: note)
        return try f.b.existingObject(with: id, as: Book.self).pages
      }
      try check(pages == 600, "after the merge B sees \(pages) pages instead of 600")
    },
    // The merge calls `delete(_:)` on the object (Apple, `mergeChanges(fromContextDidSave:)`):
    // until B saves, it is a pending deletion, and reading it is a use like any other.
    .legal("reading a deletion merged from another context, before saving it") { f in
      let (theirs, note) = try await bookDeletedByA(in: f)
      let (title, deleted) = await f.b.perform {
        f.b.mergeChanges(fromContextDidSave: note)
        return (theirs.value.title, theirs.value.isDeleted)
      }
      try check(title == "Dune" && deleted, "read '\(title)', deleted: \(deleted)")
    },
    .legal("automatic merge into another context, then read inside its perform") { f in
      let id = f.book.objectID
      f.b.automaticallyMergesChangesFromParent = true
      _ = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      try await f.a.perform {
        f.book.pages = 700
        try f.a.save()
      }
      // The merge is enqueued on B's queue by A's save: an enqueued perform runs after it.
      let pages = try await f.b.perform(schedule: .enqueued) {
        try f.b.existingObject(with: id, as: Book.self).pages
      }
      try check(pages == 700, "after the automatic merge B sees \(pages) pages instead of 700")
    },
    .legal("existingObject with another store's ID throws, not a violation") { f in
      let other = PersistentContainer(
        name: f.container.name + " (other store)", concurrencyChecking: .record)
      let foreignID = try await other.performBackgroundTask { context in
        let book = Book(context: context)
        book.title = "Emma"
        try context.save()
        return book.objectID
      }
      let error = await existingObjectError(foreignID, in: f.a)
      try check(error == .foreignStore(foreignID), "threw \(String(describing: error))")
      try check(other.violations.isEmpty, "the other store recorded \(other.violations)")
    },
  ]
}
