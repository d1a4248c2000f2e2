import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// The ID look-ups, merging and refreshing, as Apple's `NSManagedObjectContext` documents them:
/// `registeredObject(for:)`, `object(with:)`, `existingObject(with:)`,
/// `mergeChanges(fromContextDidSave:)`, `refresh(_:mergeChanges:)`, `refreshAllObjects()`,
/// `automaticallyMergesChangesFromParent` and `NSManagedObjectContextObjectsDidChange`.
@Suite("Look-ups, merges and refreshes")
struct LookupAndMergeTests {
  /// A saved book and its ID.
  static func savedBook(
    _ title: String = "Dune", in container: PersistentContainer
  ) async throws -> ManagedObjectID {
    let context = container.newBackgroundContext()
    return try await context.perform {
      let book = Book(context: context)
      book.title = title
      try context.save()
      return book.objectID
    }
  }

  @Test("Asking a fault whether it is inserted, deleted or changed does not fire it")
  func stateFlagsLeaveFaults() async throws {
    // Apple, Core Data Performance, "Faulting Behavior": isInserted, isUpdated, isDeleted and
    // isFault may be asked of a fault without firing it.
    let container = makeContainer()
    let id = try await Self.savedBook(in: container)
    let context = container.newBackgroundContext()
    let (flags, stillFault, title, loaded) = await context.perform {
      let fault = context.object(with: id)
      let flags = [fault.isInserted, fault.isUpdated, fault.isDeleted, fault.hasChanges]
      let stillFault = fault.isFault
      let title = (fault as? Book)?.title
      return (flags, stillFault, title, !fault.isFault)
    }
    #expect(flags == [false, false, false, false])
    #expect(stillFault, "asking the flags loaded the object's values")
    #expect(title == "Dune" && loaded, "reading an attribute fires the fault")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test(
    "registeredObject(for:) never fetches; object(with:) gives a fault; both find registered ones")
  func lookups() async throws {
    let container = makeContainer()
    let id = try await Self.savedBook(in: container)
    let context = container.newBackgroundContext()
    let result = try await context.perform {
      let before = context.registeredObject(for: id)
      let fault = context.object(with: id)
      let wasFault = fault.isFault
      let title = (fault as? Book)?.title
      let after = context.registeredObject(for: id)
      let existing = try context.existingObject(with: id)
      return (before == nil, wasFault, title, after === fault, existing === fault, fault.isFault)
    }
    #expect(result.0, "registeredObject(for:) does not fetch")
    #expect(result.1 && result.2 == "Dune", "a fault that loads on first use")
    #expect(result.3 && result.4, "one object per ID in a context (uniquing)")
    #expect(!result.5)
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("The look-ups are context accesses: outside perform they are reported")
  func lookupsAreChecked() async throws {
    let container = makeContainer()
    let id = try await Self.savedBook(in: container)
    let context = container.newBackgroundContext()
    context.name = "looker"
    _ = context.registeredObject(for: id)
    _ = context.object(with: id)
    context.refreshAllObjects()
    let reported = container.violations.map(\.subject)
    // Each report names the call that was made.
    #expect(reported == ["registeredObject of Book", "objectWithID of Book", "refreshAllObjects"])
  }

  @Test("fetchRequest() asks for every object of the entity")
  func fetchRequest() async throws {
    let container = makeContainer()
    _ = try await Self.savedBook("one", in: container)
    _ = try await Self.savedBook("two", in: container)
    let context = container.newBackgroundContext()
    let titles = try await context.perform { try context.fetch(Book.fetchRequest()).map(\.title) }
    #expect(titles == ["one", "two"])
  }

  @Test("Merging a save faults in its inserted objects, and tells the context's observers")
  func mergeInserted() async throws {
    let container = makeContainer()
    let writer = container.newBackgroundContext()
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    reader.name = "reader"
    let heard = ObjectsDidChangeRecorder(reader)
    defer { heard.stop() }
    let notes = container.saveNotifications()
    let id = try await writer.perform {
      let book = Book(context: writer)
      book.title = "new"
      try writer.save()
      return book.objectID
    }
    let note = try await withTimeout(.seconds(20), "the save notification") {
      var iterator = notes.makeAsyncIterator()
      return await iterator.next()
    }
    let (registered, isFault) = try await reader.perform {
      reader.mergeChanges(fromContextDidSave: try #require(note))
      let object = reader.registeredObject(for: id)
      return (object != nil, object?.isFault)
    }
    #expect(registered && isFault == true)
    #expect(heard.all.map(\.insertedObjectIDs) == [[id]])
    #expect(heard.all.first?.contextName == "reader")
  }

  @Test("refresh(_:mergeChanges: false) discards changes and turns the object into a fault")
  func refreshToFault() async throws {
    let container = makeContainer()
    let id = try await Self.savedBook(in: container)
    let context = container.newBackgroundContext()
    let result = try await context.perform {
      let book = try context.existingObject(with: id, as: Book.self)
      book.title = "changed"
      context.refresh(book, mergeChanges: false)
      let isFault = book.isFault
      return (isFault, book.title, book.hasChanges, book.isFault)
    }
    #expect(result.0 && result.1 == "Dune" && !result.2 && !result.3)
  }

  @Test("refreshAllObjects() keeps unsaved changes and turns the other objects into faults")
  func refreshAll() async throws {
    let container = makeContainer()
    let first = try await Self.savedBook("first", in: container)
    let second = try await Self.savedBook("second", in: container)
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    let heard = ObjectsDidChangeRecorder(reader)
    defer { heard.stop() }
    try await reader.perform {
      try reader.existingObject(with: first, as: Book.self).pages = 7
      _ = try reader.existingObject(with: second, as: Book.self).pages
    }
    let writer = container.newBackgroundContext()
    try await writer.perform {
      try writer.existingObject(with: first, as: Book.self).note = "store"
      try writer.existingObject(with: second, as: Book.self).note = "store"
      try writer.save()
    }
    let (values, faults) = try await reader.perform {
      reader.refreshAllObjects()
      let one = try reader.existingObject(with: first, as: Book.self)
      let two = try reader.existingObject(with: second, as: Book.self)
      let faults = [one.isFault, two.isFault]
      return ([one.note, two.note, "\(one.pages)"], faults)
    }
    #expect(values == ["store", "store", "7"])
    #expect(faults == [false, true], "an object without changes becomes a fault")
    #expect(heard.all.map(\.updatedObjectIDs) == [[first]])
    #expect(heard.all.map(\.refreshedObjectIDs) == [[second]])
  }

  /// Apple: the context "automatically merges changes saved to its persistent store coordinator
  /// or parent context" (`automaticallyMergesChangesFromParent`): a sibling's save into the
  /// shared parent is a change saved to the parent.
  @Test("A child that merges automatically takes a sibling's save into their shared parent")
  func siblingSaveIsMerged() async throws {
    let container = makeContainer()
    let id = try await Self.savedBook(in: container)
    let parent = container.newBackgroundContext()
    let watcher = parent.newChildContext()
    watcher.retainsRegisteredObjects = true  // as an app holding it would
    watcher.automaticallyMergesChangesFromParent = true
    let heard = ObjectsDidChangeRecorder(watcher)
    defer { heard.stop() }
    _ = try await watcher.perform { try watcher.existingObject(with: id, as: Book.self).title }
    let sibling = parent.newChildContext()
    try await sibling.perform {
      try sibling.existingObject(with: id, as: Book.self).title = "from a sibling"
      try sibling.save()
    }
    #expect(await heard.first.opened(), "the watcher merged the sibling's save")
    let title = try await watcher.perform {
      try watcher.existingObject(with: id, as: Book.self).title
    }
    #expect(title == "from a sibling")
  }

  /// Apple, `existingObject(with:)` and `object(with:)`: an object registered in the context is
  /// returned directly; one whose deletion is pending is still registered until the save.
  @Test("The look-ups return an object whose deletion is pending; after the save, they do not")
  func lookupsOfDeletedObject() async throws {
    let container = makeContainer()
    let id = try await Self.savedBook(in: container)
    let context = container.newBackgroundContext()
    let (pending, saved) = try await context.perform {
      let book = try context.existingObject(with: id)
      context.delete(book)
      let pending = [
        context.registeredObject(for: id) === book, context.object(with: id) === book,
        try context.existingObject(with: id) === book,
      ]
      try context.save()
      return (pending, context.registeredObject(for: id) == nil)
    }
    #expect(pending == [true, true, true])
    #expect(saved)
    await context.perform {
      _ = #expect(throws: PersistenceError.objectDeleted(id)) {
        try context.existingObject(with: id)
      }
    }
  }

  /// A fault whose row is gone fires as Core Data's does by default
  /// (`shouldDeleteInaccessibleFaults`): deleted, "which adds the object to the context's
  /// deletedObjects set". Its values are the ones it last saw, where Core Data's are nil or 0
  /// (a difference Tests/FIDELITY.md lists). From then on `existingObject(with:)` hands it back
  /// as the pending deletion it is, as after a merge of the deletion.
  @Test("A fault whose row another context deleted fires as a pending deletion")
  func faultOfDeletedRow() async throws {
    let container = makeContainer()
    let id = try await Self.savedBook(in: container)
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    let wasFault = await reader.perform { reader.object(with: id).isFault }
    try await container.performBackgroundTask { context in
      context.delete(try context.existingObject(with: id))
      try context.save()
    }
    let (title, isDeleted) = await reader.perform {
      let book = reader.object(with: id) as! Book
      return (book.title, book.isDeleted)
    }
    #expect(wasFault)
    #expect(title == "Dune" && isDeleted)
    let handedBack = try await reader.perform {
      try reader.existingObject(with: id).isDeleted
    }
    #expect(handedBack)
  }
}
