import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

@Suite("Save notifications and merging")
struct SaveNotificationTests {
  @Test("A save notification carries the inserted, updated and deleted object IDs")
  func notificationContents() async throws {
    let container = makeContainer()
    let notes = container.saveNotifications()
    let context = container.newBackgroundContext()
    context.name = "writer"
    let (first, second, third) = try await context.perform {
      let a = Book(context: context)
      a.title = "a"
      let b = Book(context: context)
      b.title = "b"
      try context.save()
      a.title = "a2"
      context.delete(b)
      let c = Book(context: context)
      c.title = "c"
      try context.save()
      return (a.objectID, b.objectID, c.objectID)
    }
    let received = try await withTimeout(.seconds(20), "two save notifications") {
      var iterator = notes.makeAsyncIterator()
      return [await iterator.next(), await iterator.next()].compactMap { $0 }
    }
    #expect(received.count == 2)
    #expect(received.first?.insertedObjectIDs == [first, second])
    #expect(received.first?.contextName == "writer")
    #expect(received.last?.insertedObjectIDs == [third])
    #expect(received.last?.updatedObjectIDs == [first])
    #expect(received.last?.deletedObjectIDs == [second])
  }

  @Test("Observers are called for each save until removed; a save with no changes posts nothing")
  func observers() async throws {
    let container = makeContainer()
    let count = Mutex(0)
    let token = container.addSaveObserver { _ in count.withLock { $0 += 1 } }
    let context = container.newBackgroundContext()
    try await context.perform {
      Book(context: context).title = "one"
      try context.save()
      try context.save()
    }
    container.removeSaveObserver(token)
    try await context.perform {
      Book(context: context).title = "two"
      try context.save()
    }
    #expect(count.withLock { $0 } == 1)
  }

  /// `NSManagedObjectContext.willSaveObjectsNotification`: posted before the context writes,
  /// on the saving thread; an observer may still add to the save.
  @Test(
    "A will-save observer runs before a save with changes, inside its perform, and may add to it")
  func willSave() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    context.name = "writer"
    let seen = Mutex<[String]>([])
    let token = container.addWillSaveObserver { note in
      // Inside the saving context's perform: the observer may use the context.
      let inserted = context.insertedObjects.count
      seen.withLock { $0.append("\(note.contextName ?? "?") will save \(inserted) inserted") }
      if inserted == 1 {
        Book(context: context).title = "added by the observer"
      }
    }
    defer { container.removeSaveObserver(token) }
    try await context.perform {
      Book(context: context).title = "one"
      try context.save()
      try context.save()  // no changes: no notification
    }
    #expect(seen.withLock { $0 } == ["writer will save 1 inserted"])
    let fresh = container.newBackgroundContext()
    let stored = try await fresh.perform { try fresh.count(for: FetchRequest<Book>()) }
    #expect(stored == 2, "the object the observer inserted was saved with the rest")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// Apple, `mergeChanges(fromContextDidSave:)`: it "refreshes any objects which have been updated
  /// in the other context, faults in any newly-inserted objects, and invokes `delete(_:)` on those
  /// which have been deleted". A deleted object stays registered, as a pending deletion
  /// (`deletedObjects`: "removed from their persistent store during the next save"), until the
  /// context saves; that save finds its row gone and succeeds.
  @Test("mergeChanges(fromContextDidSave:) refreshes updated objects and deletes deleted ones")
  func manualMerge() async throws {
    let container = makeContainer()
    let writer = container.newBackgroundContext()
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    let (keptID, goneID) = try await writer.perform {
      let kept = Book(context: writer)
      kept.title = "old"
      let gone = Book(context: writer)
      gone.title = "gone"
      try writer.save()
      return (kept.objectID, gone.objectID)
    }
    _ = try await reader.perform { try reader.fetch(FetchRequest<Book>()).count }
    let notes = container.saveNotifications()
    try await writer.perform {
      try writer.existingObject(with: keptID, as: Book.self).title = "new"
      writer.delete(try writer.existingObject(with: goneID))
      try writer.save()
    }
    let note = try await withTimeout(.seconds(20), "the save notification") {
      var iterator = notes.makeAsyncIterator()
      return await iterator.next()
    }
    let (title, registered, deleted, saved) = try await reader.perform {
      let kept = try reader.existingObject(with: keptID, as: Book.self)
      let before = kept.title
      reader.mergeChanges(fromContextDidSave: try #require(note))
      _ = before
      let deleted = reader.deletedObjects.map(\.objectID)
      let registered = Set(reader.registeredObjects.map(\.objectID))
      try reader.save()
      return (kept.title, registered, deleted, reader.registeredObjects.map(\.objectID))
    }
    #expect(title == "new")
    #expect(registered == [keptID, goneID])
    #expect(deleted == [goneID])
    #expect(saved == [keptID], "the save drops the deletion, whose row was already gone")
    #expect(container.violations.isEmpty)
  }

  @Test(
    "automaticallyMergesChangesFromParent merges another context's save on its own queue",
    arguments: [true, false])
  func automaticMerge(enabled: Bool) async throws {
    let container = makeContainer()
    let id = try await saveBook("v1", in: container)
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    reader.automaticallyMergesChangesFromParent = enabled
    let before = try await reader.perform {
      try reader.existingObject(with: id, as: Book.self).title
    }
    let writer = container.newBackgroundContext()
    try await writer.perform {
      try writer.existingObject(with: id, as: Book.self).title = "v2"
      try writer.save()
    }
    // The merge was enqueued on the reader's queue during the save; an enqueued block runs after.
    let after = try await reader.perform(schedule: .enqueued) {
      try #require(reader.registeredObjects.first as? Book).title
    }
    #expect(before == "v1")
    #expect(after == (enabled ? "v2" : "v1"), "without automatic merging the copy stays stale")
    #expect(container.violations.isEmpty)
  }
}
