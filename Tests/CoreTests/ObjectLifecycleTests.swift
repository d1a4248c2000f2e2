import Foundation
import ManagedObjectCore
import Testing

@Suite("Objects: attributes, IDs and lifecycle")
struct ObjectLifecycleTests {
  @Test("Attributes of every type keep defaults and written values through a save")
  func attributeTypesRoundTrip() async throws {
    let container = makeContainer()
    let writer = container.newBackgroundContext()
    let when = Date(timeIntervalSince1970: 1_000_000)
    let uuid = UUID()
    let id = try await writer.perform {
      let sample = Sample(context: writer)
      #expect(sample.text == "text")
      #expect(sample.optionalText == nil)
      sample.required = "set"
      sample.count = 42
      sample.ratio = 0.25
      sample.flag = true
      sample.when = when
      sample.uuid = uuid
      sample.blob = Data([1, 2, 3])
      sample.optionalCount = 7
      try writer.save()
      return sample.objectID
    }
    let reader = container.newBackgroundContext()
    let values = try await reader.perform {
      let sample = try reader.existingObject(with: id, as: Sample.self)
      return (
        sample.text, sample.count, sample.ratio, sample.flag, sample.when, sample.uuid,
        sample.blob, sample.optionalText, sample.optionalCount, sample.required
      )
    }
    #expect(values.0 == "text")
    #expect(values.1 == 42)
    #expect(values.2 == 0.25)
    #expect(values.3 == true)
    #expect(values.4 == when)
    #expect(values.5 == uuid)
    #expect(values.6 == Data([1, 2, 3]))
    #expect(values.7 == nil)
    #expect(values.8 == 7)
    #expect(values.9 == "set")
    #expect(container.violations.isEmpty)
  }

  @Test("An inserted object has a temporary ID until it is saved, then a permanent one")
  func temporaryThenPermanentID() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let (before, after, isInserted, isInsertedAfter) = try await context.perform {
      let book = Book(context: context)
      book.title = "Dune"
      let before = book.objectID
      let inserted = book.isInserted
      try context.save()
      return (before, book.objectID, inserted, book.isInserted)
    }
    #expect(before.isTemporaryID)
    #expect(!after.isTemporaryID)
    #expect(before != after)
    #expect(isInserted)
    #expect(!isInsertedAfter)
    #expect(after.entityName == "Book")
  }

  @Test("obtainPermanentIDs gives a permanent ID before the save, and the save keeps it")
  func obtainPermanentIDs() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let (early, saved) = try await context.perform {
      let book = Book(context: context)
      book.title = "Emma"
      context.obtainPermanentIDs(for: [book])
      let early = book.objectID
      try context.save()
      return (early, book.objectID)
    }
    #expect(!early.isTemporaryID)
    #expect(early == saved)
    let other = container.newBackgroundContext()
    let title = try await other.perform {
      try other.existingObject(with: early, as: Book.self).title
    }
    #expect(title == "Emma")
  }

  @Test("A URI representation leads back to the same ID, and only for its own store")
  func uriRoundTrip() async throws {
    let container = makeContainer()
    let id = try await saveBook("Ulysses", in: container)
    let uri = id.uriRepresentation()
    #expect(uri.scheme == "x-coredata")
    #expect(container.managedObjectID(forURIRepresentation: uri) == id)
    #expect(makeContainer("other").managedObjectID(forURIRepresentation: uri) == nil)
  }

  @Test(
    "existingObject(with:) throws a typed error for unknown, deleted, foreign and temporary IDs")
  func existingObjectErrors() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let (savedID, temporaryID) = try await context.perform {
      let saved = Book(context: context)
      saved.title = "Saved"
      try context.save()
      let pending = Book(context: context)
      pending.title = "Pending"
      return (saved.objectID, pending.objectID)
    }
    let foreignID = try await saveBook("Elsewhere", in: makeContainer("foreign"))
    let other = container.newBackgroundContext()
    try await other.perform {
      #expect(throws: PersistenceError.temporaryIDOutsideItsContext(temporaryID)) {
        try other.existingObject(with: temporaryID)
      }
      #expect(throws: PersistenceError.foreignStore(foreignID)) {
        try other.existingObject(with: foreignID)
      }
      #expect(throws: PersistenceError.entityMismatch(savedID, expected: "Author")) {
        try other.existingObject(with: savedID, as: Author.self)
      }
      other.delete(try other.existingObject(with: savedID))
      try other.save()
    }
    try await context.perform { () throws in
      // The temporary ID still works in the context that made it.
      #expect(try context.existingObject(with: temporaryID, as: Book.self).title == "Pending")
      #expect(throws: PersistenceError.objectDeleted(savedID)) {
        try context.existingObject(with: savedID)
      }
    }
    let third = container.newBackgroundContext()
    let unknown = try #require(
      container.managedObjectID(
        forURIRepresentation: URL(
          string: savedID.uriRepresentation().absoluteString.replacingOccurrences(
            of: "/p\(1)", with: "/p999"))!))
    await third.perform {
      _ = #expect(throws: PersistenceError.objectNotFound(unknown)) {
        try third.existingObject(with: unknown)
      }
    }
    #expect(container.violations.isEmpty)
  }

  @Test("changedValues, hasChanges and the context's change sets follow edits and saves")
  func changeTracking() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    try await context.perform {
      #expect(!context.hasChanges)
      let book = Book(context: context)
      book.title = "Persuasion"
      #expect(context.hasChanges)
      #expect(context.insertedObjects == [book])
      #expect(book.changedValues()["title"] as? String == "Persuasion")
      try context.save()
      #expect(!context.hasChanges)
      #expect(!book.hasChanges)
      #expect(book.changedValues().isEmpty)
      book.pages = 300
      #expect(book.hasChanges)
      #expect(context.updatedObjects == [book])
      #expect(Set(book.changedValues().keys) == ["pages"])
      context.delete(book)
      #expect(book.isDeleted)
      #expect(context.deletedObjects == [book])
      try context.save()
      #expect(!context.hasChanges)
      #expect(book.managedObjectContext == nil)
    }
    #expect(container.violations.isEmpty)
  }

  @Test("Saving with a required attribute unset fails validation, naming the object and attribute")
  func validationNamesObjectAndAttribute() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let (error, id) = await context.perform {
      let sample = Sample(context: context)
      return (context.saveError(), sample.objectID)
    }
    guard case .validation(let failures)? = error else {
      Issue.record("expected a validation error, got \(String(describing: error))")
      return
    }
    #expect(failures.map(\.property) == ["required"])
    #expect(failures.first?.objectID == id)
    #expect(failures.first?.entityName == "Sample")
    #expect(error?.description.contains("Sample.required") == true)
  }

  @Test("A save is atomic: one invalid object keeps every other change out of the store")
  func saveIsAtomic() async throws {
    let container = makeContainer()
    let existing = try await saveBook("Before", in: container)
    let context = container.newBackgroundContext()
    try await context.perform {
      let book = try context.existingObject(with: existing, as: Book.self)
      book.title = "After"
      for index in 0..<5 {
        Book(context: context).title = "New \(index)"
      }
      _ = Sample(context: context)  // required attribute missing
      #expect(throws: PersistenceError.self) { try context.save() }
      #expect(context.hasChanges)
    }
    let reader = container.newBackgroundContext()
    let (count, title) = try await reader.perform {
      (
        try reader.count(for: FetchRequest<Book>()),
        try reader.existingObject(with: existing, as: Book.self).title
      )
    }
    #expect(count == 1)
    #expect(title == "Before")
  }

  @Test("rollback discards inserts, restores edits and undoes deletes")
  func rollback() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    try await context.perform {
      let kept = Book(context: context)
      kept.title = "Kept"
      let gone = Book(context: context)
      gone.title = "Gone"
      try context.save()
      kept.title = "Edited"
      context.delete(gone)
      let inserted = Book(context: context)
      inserted.title = "Inserted"
      context.rollback()
      #expect(!context.hasChanges)
      #expect(kept.title == "Kept")
      #expect(!gone.isDeleted)
      #expect(inserted.managedObjectContext == nil)
      #expect(try context.count(for: FetchRequest<Book>()) == 2)
    }
    #expect(container.violations.isEmpty)
  }

  @Test("reset forgets every object; a refetch by ID gives a fresh one")
  func reset() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    try await context.perform {
      let book = Book(context: context)
      book.title = "Old"
      try context.save()
      let id = book.objectID
      context.reset()
      #expect(context.registeredObjects.isEmpty)
      #expect(book.managedObjectContext == nil)
      let again = try context.existingObject(with: id, as: Book.self)
      #expect(again !== book)
      #expect(again.title == "Old")
    }
    #expect(container.violations.isEmpty)
  }

  @Test("refresh without merging discards pending changes; with merging keeps them over the store")
  func refresh() async throws {
    let container = makeContainer()
    let first = container.newBackgroundContext()
    let second = container.newBackgroundContext()
    let id = try await first.perform {
      let counter = Counter(context: first)
      counter.name = "c"
      try first.save()
      return counter.objectID
    }
    try await second.perform {
      let counter = try second.existingObject(with: id, as: Counter.self)
      counter.value = 5
      counter.label = "store"
      try second.save()
    }
    try await first.perform {
      let counter = try first.existingObject(with: id, as: Counter.self)
      counter.name = "local"
      first.refresh(counter, mergeChanges: true)
      #expect(counter.name == "local")
      #expect(counter.value == 5)
      #expect(counter.label == "store")
      first.refresh(counter, mergeChanges: false)
      #expect(counter.name == "c")
      #expect(!counter.hasChanges)
    }
    #expect(container.violations.isEmpty)
  }
}
