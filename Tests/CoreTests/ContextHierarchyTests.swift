import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

@Suite("Context hierarchy: parents and children")
struct ContextHierarchyTests {
  @Test("A child's save reaches its parent, not the store; the parent's save reaches the store")
  func childSavesIntoParent() async throws {
    let container = makeContainer()
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    #expect(child.parent === parent)
    #expect(parent.parent == nil)
    try await child.perform {
      Book(context: child).title = "From the child"
      try child.save()
    }
    #expect(try await storedBookTitles(in: container).isEmpty)
    let (pending, titles) = try await parent.perform {
      (parent.hasChanges, try parent.fetch(FetchRequest<Book>()).map(\.title))
    }
    #expect(pending)
    #expect(titles == ["From the child"])
    try await parent.perform { try parent.save() }
    #expect(try await storedBookTitles(in: container) == ["From the child"])
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("A child sees its parent's pending inserts, edits and deletions")
  func childSeesParentsPendingChanges() async throws {
    let container = makeContainer()
    let keptID = try await saveBook("kept", in: container)
    let goneID = try await saveBook("gone", in: container)
    let parent = container.newBackgroundContext()
    try await parent.perform {
      try parent.existingObject(with: keptID, as: Book.self).title = "edited in parent"
      parent.delete(try parent.existingObject(with: goneID))
      Book(context: parent).title = "inserted in parent"
    }
    let child = parent.newChildContext()
    let (titles, deleted) = try await child.perform {
      let titles = try child.fetch(FetchRequest<Book>(sortDescriptors: [SortDescriptor(\.title)]))
        .map(\.title)
      var deleted: PersistenceError?
      do throws(PersistenceError) {
        _ = try child.existingObject(with: goneID)
      } catch {
        deleted = error
      }
      return (titles, deleted)
    }
    #expect(titles == ["edited in parent", "inserted in parent"])
    #expect(deleted == .objectDeleted(goneID))
  }

  @Test("A child's edits and deletions become the parent's pending changes")
  func childEditsAndDeletes() async throws {
    let container = makeContainer()
    let editedID = try await saveBook("before", in: container)
    let deletedID = try await saveBook("doomed", in: container)
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    try await child.perform {
      try child.existingObject(with: editedID, as: Book.self).title = "after"
      child.delete(try child.existingObject(with: deletedID))
      try child.save()
    }
    let (updated, deleted) = await parent.perform {
      (parent.updatedObjects.map(\.objectID), parent.deletedObjects.map(\.objectID))
    }
    #expect(updated == [editedID])
    #expect(deleted == [deletedID])
    #expect(try await storedBookTitles(in: container) == ["before", "doomed"])
    try await parent.perform { try parent.save() }
    #expect(try await storedBookTitles(in: container) == ["after"])
  }

  @Test("Grandchild, child, root: each save moves the changes one level up")
  func threeLevels() async throws {
    let container = makeContainer()
    let root = container.newBackgroundContext()
    let middle = root.newChildContext()
    let leaf = middle.newChildContext()
    try await leaf.perform {
      Book(context: leaf).title = "deep"
      try leaf.save()
    }
    let seenByRoot = try await root.perform { try root.count(for: FetchRequest<Book>()) }
    #expect(seenByRoot == 0)
    try await middle.perform { try middle.save() }
    let seenByRootNow = try await root.perform { try root.count(for: FetchRequest<Book>()) }
    #expect(seenByRootNow == 1)
    #expect(try await storedBookTitles(in: container).isEmpty)
    try await root.perform { try root.save() }
    #expect(try await storedBookTitles(in: container) == ["deep"])
  }

  @Test("A main-queue child is used on the main actor and saves into its private parent")
  @MainActor
  func mainQueueChild() async throws {
    let container = makeContainer()
    let root = container.newBackgroundContext()
    let ui = root.newChildContext(concurrencyType: .mainQueue)
    #expect(ui.concurrencyType == .mainQueue)
    let book = Book(context: ui)
    book.title = "on the main actor"
    try ui.save()
    try await root.perform { try root.save() }
    #expect(try await storedBookTitles(in: container) == ["on the main actor"])
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("automaticallyMergesChangesFromParent: a child takes its parent's save")
  func childMergesParentsSave() async throws {
    let container = makeContainer()
    let id = try await saveBook("v1", in: container)
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    child.retainsRegisteredObjects = true  // as an app holding it would
    child.automaticallyMergesChangesFromParent = true
    let before = try await child.perform { try child.existingObject(with: id, as: Book.self).title }
    try await parent.perform {
      try parent.existingObject(with: id, as: Book.self).title = "v2"
      try parent.save()
    }
    let after = try await child.perform(schedule: .enqueued) {
      try #require(child.registeredObjects.first as? Book).title
    }
    #expect(before == "v1")
    #expect(after == "v2")
  }

  @Test("A parent's save gives a merging child's objects their permanent IDs")
  func mergeAdoptsPermanentIDs() async throws {
    let container = makeContainer()
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    child.retainsRegisteredObjects = true  // as an app holding it would
    child.automaticallyMergesChangesFromParent = true
    let temporary = try await child.perform {
      let book = Book(context: child)
      book.title = "made in the child"
      try child.save()
      return book.objectID
    }
    try await parent.perform { try parent.save() }
    let after = try await child.perform(schedule: .enqueued) {
      try #require(child.registeredObjects.first).objectID
    }
    #expect(temporary.isTemporaryID)
    #expect(!after.isTemporaryID)
    let title = try await container.performBackgroundTask { context in
      try context.existingObject(with: after, as: Book.self).title
    }
    #expect(title == "made in the child")
  }

  @Test("A child saved after its parent was reset fails, and changes nothing")
  func childSaveAfterParentReset() async throws {
    let container = makeContainer()
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    child.retainsRegisteredObjects = true  // as an app holding it would
    let id = try await child.perform {
      let book = Book(context: child)
      book.title = "pushed"
      try child.save()
      return book.objectID
    }
    await parent.perform { parent.reset() }
    let error = try await child.perform {
      try #require(child.registeredObjects.first as? Book).title = "edited"
      Book(context: child).title = "another"
      return child.saveError()
    }
    #expect(error == .objectNotFound(id))
    let parentCount = try await parent.perform { try parent.count(for: FetchRequest<Book>()) }
    #expect(parentCount == 0)
  }

  @Test("obtainPermanentIDs in a child: the ID stays the same all the way to the store")
  func permanentIDsThroughTheHierarchy() async throws {
    let container = makeContainer()
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    let id = try await child.perform {
      let book = Book(context: child)
      book.title = "stable"
      child.obtainPermanentIDs(for: [book])
      try child.save()
      return book.objectID
    }
    try await parent.perform { try parent.save() }
    #expect(!id.isTemporaryID)
    let title = try await container.performBackgroundTask { context in
      try context.existingObject(with: id, as: Book.self).title
    }
    #expect(title == "stable")
  }

  @Test("A child's perform does not make its parent's objects legal to touch")
  func childScopeIsNotParentScope() async throws {
    let container = makeContainer()
    let parent = container.newBackgroundContext()
    parent.name = "parent"
    let child = parent.newChildContext()
    child.name = "child"
    let book = try await parent.perform {
      let book = Book(context: parent)
      book.title = "parent's"
      try parent.save()
      return Smuggled(book)
    }
    await child.perform { _ = book.value.title }
    let violations = container.violations
    #expect(violations.count == 1, "\(violations)")
    #expect(violations.first?.contextName == "parent")
    #expect(violations.first?.location.contains("inside perform of 'child'") == true)
  }

  /// Apple, `NSManagedObjectContext.parent`: a child's fetches are "mediated by the parent
  /// context", so the parent's pending changes are the child's store, sorted and windowed.
  @Test("A child's sorted, limited fetch and its count see the parent's pending changes")
  func childWindowOverParentsPendingChanges() async throws {
    let container = makeContainer()
    for title in ["one", "two", "three"] { _ = try await saveBook(title, in: container) }
    let parent = container.newBackgroundContext()
    try await parent.perform {
      let all = try parent.fetch(FetchRequest<Book>(sortDescriptors: [SortDescriptor(\.title)]))
      all[0].pages = 1  // "one"
      parent.delete(all[1])  // "three"
      let new = Book(context: parent)
      new.title = "new"
      new.pages = 5
    }
    let child = parent.newChildContext()
    let (titles, count) = try await child.perform {
      let request = FetchRequest<Book>(
        sortDescriptors: [SortDescriptor(\.pages, order: .reverse)], fetchLimit: 2)
      return (try child.fetch(request).map(\.title), try child.count(for: FetchRequest<Book>()))
    }
    #expect(titles == ["new", "one"])
    #expect(count == 3)
  }

  /// Apple: the context "automatically merges changes saved to its persistent store coordinator
  /// or parent context" (`automaticallyMergesChangesFromParent`). A background context's save
  /// reaches the store; the view context merges it, but a merge is not a save, so the view
  /// context's child is not told.
  @Test("A child of the view context does not take a store save its parent merged")
  @MainActor
  func viewContextsChildIgnoresStoreSaves() async throws {
    let container = makeContainer()
    let id = try await saveBook("v1", in: container)
    let view = container.viewContext
    view.retainsRegisteredObjects = true  // as an app holding it would
    view.automaticallyMergesChangesFromParent = true
    let child = view.newChildContext()
    child.retainsRegisteredObjects = true  // as an app holding it would
    child.automaticallyMergesChangesFromParent = true
    _ = try view.existingObject(with: id, as: Book.self).title
    _ = try await child.perform { try child.existingObject(with: id, as: Book.self).title }
    try await container.performBackgroundTask { context in
      try context.existingObject(with: id, as: Book.self).title = "v2"
      try context.save()
    }
    // Merges are enqueued during the save; an enqueued block runs after them.
    let inView = try await view.perform(schedule: .enqueued) {
      try #require(view.registeredObject(for: id) as? Book).title
    }
    let inChild = try await child.perform(schedule: .enqueued) {
      try #require(child.registeredObject(for: id) as? Book).title
    }
    #expect(inView == "v2")
    #expect(inChild == "v1")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// `insert(_:)`: an object "is registered in the receiver with a temporary global ID. It is
  /// assigned a permanent global ID when changes are committed": a save into a parent commits
  /// nothing to a store, so each level's save notification names the temporary ID, and only the
  /// root's names the permanent one.
  @Test("Saves up a grandchild chain report the temporary ID; the root's save the permanent one")
  func notificationsUpTheChain() async throws {
    let container = makeContainer()
    let root = container.newBackgroundContext()
    let middle = root.newChildContext()
    let leaf = middle.newChildContext()
    let notes = container.saveNotifications()
    let temporary = try await leaf.perform {
      let book = Book(context: leaf)
      book.title = "deep"
      try leaf.save()
      return book.objectID
    }
    try await middle.perform { try middle.save() }
    let permanent = try await root.perform {
      let book = root.insertedObjects.first  // held, so that it is still here after the save
      try root.save()
      return try #require(book).objectID
    }
    let received = try await withTimeout(.seconds(20), "three save notifications") {
      var iterator = notes.makeAsyncIterator()
      return [await iterator.next(), await iterator.next(), await iterator.next()]
    }
    #expect(temporary.isTemporaryID && !permanent.isTemporaryID)
    #expect(received.map { $0?.insertedObjectIDs } == [[temporary], [temporary], [permanent]])
  }
}
