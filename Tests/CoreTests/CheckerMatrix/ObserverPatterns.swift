import Dispatch
import ManagedObjectCore
import Synchronization
import WorkshopSupport

// Observers, and where they run. Core Data posts a context's notifications synchronously, where
// the context did the work: didSave and willSave "after"/"before" a save, on the saving context's
// queue, objectsDidChange where the change was made ("Don't perform any asynchronous work or block
// the calling thread. NSManagedObjectContext posts notifications to the same thread that creates
// it", NSManagedObjectContext.didSaveObjectsNotification and .didChangeObjectsNotification,
// developer.apple.com/documentation/coredata/nsmanagedobjectcontext). So an observer runs inside
// the perform of the context it hears about, and may use that context; any other context it must
// reach through that context's perform.

extension AccessPattern {
  static let observerPatterns: [AccessPattern] = [
    .legal("a save observer uses the saving context and its objects") { f in
      let heard = Mutex<[Int]>([])
      let token = f.container.addSaveObserver { _ in
        let pages = f.book.pages
        let pending = f.a.hasChanges
        heard.withLock { $0.append(pending ? -pages : pages) }
      }
      defer { f.container.removeSaveObserver(token) }
      try await f.a.perform {
        f.book.pages = 500
        try f.a.save()
      }
      try check(heard.withLock { $0 } == [500], "the observer heard \(heard.withLock { $0 })")
    },
    .legal("a will-save observer uses the saving context") { f in
      let heard = Mutex<[Int]>([])
      let token = f.container.addWillSaveObserver { _ in
        heard.withLock { $0.append(f.a.updatedObjects.count) }
      }
      defer { f.container.removeSaveObserver(token) }
      try await f.a.perform {
        f.book.pages = 500
        try f.a.save()
      }
      try check(heard.withLock { $0 } == [1], "the observer heard \(heard.withLock { $0 })")
    },
    .illegal(
      "a save observer uses another context",
      .init(.outsidePerform, .inspectChanges, nil, in: "B", at: "inside perform of 'A'")
    ) { f in
      let token = f.container.addSaveObserver { _ in _ = f.b.hasChanges }
      defer { f.container.removeSaveObserver(token) }
      try await f.a.perform {
        f.book.pages = 500
        try f.a.save()
      }
    },
    .legal("an objects-did-change observer of an automatic merge uses the merging context") { f in
      let id = f.book.objectID
      f.b.automaticallyMergesChangesFromParent = true
      f.b.retainsRegisteredObjects = true  // as an app holding it would
      _ = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      let heard = Mutex<[Int]>([])
      let token = f.b.addObjectsDidChangeObserver { change in
        guard change.refreshedObjectIDs.contains(id) else { return }
        let pages = (f.b.registeredObject(for: id) as? Book)?.pages ?? -1
        heard.withLock { $0.append(pages) }
      }
      defer { f.b.removeObjectsDidChangeObserver(token) }
      try await f.a.perform {
        f.book.pages = 700
        try f.a.save()
      }
      // The merge is enqueued on B's queue by A's save: an enqueued perform runs after it.
      await f.b.perform(schedule: .enqueued) {}
      try check(heard.withLock { $0 } == [700], "the observer heard \(heard.withLock { $0 })")
    },
    .legalFromScratch(
      "an objects-did-change observer of the viewContext's automatic merge uses the viewContext"
    ) { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let view = container.viewContext
      view.automaticallyMergesChangesFromParent = true
      view.retainsRegisteredObjects = true  // as an app holding it would
      let id = try await view.perform { () throws -> ManagedObjectID in
        let book = Book(context: view)
        book.title = "Dune"
        try view.save()
        return book.objectID
      }
      let heard = Mutex<[String]>([])
      let token = view.addObjectsDidChangeObserver { change in
        guard change.refreshedObjectIDs.contains(id) else { return }
        let title = (view.registeredObject(for: id) as? Book)?.title ?? "(none)"
        heard.withLock { $0.append(title) }
      }
      defer { view.removeObjectsDidChangeObserver(token) }
      try await container.performBackgroundTask { context in
        try context.existingObject(with: id, as: Book.self).title = "Dune Messiah"
        try context.save()
      }
      await view.perform(schedule: .enqueued) {}
      try check(heard.withLock { $0 } == ["Dune Messiah"], "heard \(heard.withLock { $0 })")
      return container
    },
  ]
}
