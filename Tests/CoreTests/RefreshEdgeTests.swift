import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// Refreshes, merges, rollbacks and resets of objects that are faults, pending deletions, pending
/// inserts, or whose rows another context deleted.
///
/// Apple, `refresh(_:mergeChanges:)`: with false "the context discards pending changes and the
/// managed object becomes a fault"; with true it "reloads the object's property values from the
/// store or the cache. Then the context applies local changes over the newly loaded values".
/// `refreshAllObjects()` "refreshes all the objects in the context while preserving the unsaved
/// changes" (WWDC 2015, "What's New in Core Data"). `mergeChanges(fromContextDidSave:)` "refreshes
/// any objects which have been updated in the other context […] and invokes `delete(_:)` on those
/// which have been deleted". `rollback()` "discards all insertions and deletions, and restores
/// updated objects to their last committed values".
@Suite("Refreshing faults, deletions and inserts")
struct RefreshEdgeTests {
  /// A context holding `id` registered, and the notification of another context's save of
  /// `change` to that row.
  private static func merged(
    _ id: ManagedObjectID, in container: PersistentContainer, registering: Registration,
    change: @escaping @Sendable (ManagedObjectContext, ManagedObject) -> Void
  ) async throws -> (reader: ManagedObjectContext, note: ContextDidSave) {
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    try await reader.perform {
      switch registering {
      case .fault: _ = reader.object(with: id)
      case .loaded: _ = try reader.existingObject(with: id, as: Book.self).title
      }
    }
    let notes = container.saveNotifications()
    try await container.performBackgroundTask { writer in
      change(writer, try writer.existingObject(with: id))
      try writer.save()
    }
    let note = try await withTimeout(.seconds(20), "the save notification") {
      var iterator = notes.makeAsyncIterator()
      return await iterator.next()
    }
    return (reader, try #require(note))
  }

  private enum Registration { case fault, loaded }

  // MARK: Faults

  /// A fault holds no values to keep: a merge or a refresh that keeps unsaved changes must not lay
  /// its unloaded (default) values over the saved row. Whether Core Data's merge leaves a fault a
  /// fault is not in Apple's documentation; the sources that say so are third-party and old
  /// (mlsite.net, "Core Data Gotcha": merged changes leave faults alone; the workaround of firing
  /// faults before `mergeChangesFromContextDidSaveNotification:` so that an
  /// NSFetchedResultsController sees them). The core keeps it a fault holding the new row, so that
  /// it loads the saved values when it fires, as Core Data's fault reads the row cache then.
  @Test("A merged update of a fault keeps it a fault, and it fires with the saved values")
  func mergedUpdateOfFault() async throws {
    let container = makeContainer()
    let id = try await saveBook("Dune", in: container)
    let (reader, note) = try await Self.merged(id, in: container, registering: .fault) { _, book in
      (book as! Book).pages = 5
    }
    let heard = ObjectsDidChangeRecorder(reader)
    defer { heard.stop() }
    let (wasFault, pages, hasChanges) = await reader.perform {
      reader.mergeChanges(fromContextDidSave: note)
      let book = reader.registeredObject(for: id) as! Book
      let wasFault = book.isFault
      return (wasFault, book.pages, reader.hasChanges)
    }
    #expect(wasFault, "the merge loaded the fault's values")
    #expect(pages == 5, "the fault's unloaded values were laid over the saved row")
    #expect(!hasChanges)
    #expect(heard.all.map(\.refreshedObjectIDs) == [[id]])
    #expect(heard.all.map(\.updatedObjectIDs) == [[]])
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("refresh(_:mergeChanges: true) and refreshAllObjects() of a fault read the saved row")
  func refreshOfFault() async throws {
    for all in [false, true] {
      let container = makeContainer("refreshOfFault-\(all)")
      let id = try await saveBook("Dune", in: container)
      let (reader, _) = try await Self.merged(id, in: container, registering: .fault) { _, book in
        (book as! Book).pages = 5
      }
      let (pages, title, saved) = await reader.perform {
        let book = reader.registeredObject(for: id) as! Book
        if all { reader.refreshAllObjects() } else { reader.refresh(book, mergeChanges: true) }
        let pages = book.pages
        book.note = "local"
        return (pages, book.title, reader.saveError())
      }
      #expect(pages == 5, "refreshAllObjects \(all): defaults laid over the row")
      #expect(title == "Dune")
      #expect(saved == nil)
      let stored = try await container.performBackgroundTask { context in
        try context.existingObject(with: id, as: Book.self).pages
      }
      #expect(stored == 5, "refreshAllObjects \(all): a later save wrote the default back")
    }
  }

  // MARK: Merged deletions

  /// A merged deletion is a pending deletion (`delete(_:)`), an unsaved change: a refresh that
  /// keeps unsaved changes keeps it, and the object stays usable until the save.
  @Test("refresh and refreshAllObjects keep a merged deletion pending; the save drops it")
  func refreshKeepsMergedDeletion() async throws {
    for call in ["refresh(true)", "refreshAllObjects"] {
      let container = makeContainer("refreshKeepsMergedDeletion-\(call)")
      let id = try await saveBook("Dune", in: container)
      let (reader, note) = try await Self.merged(id, in: container, registering: .loaded) {
        writer, book in writer.delete(book)
      }
      let heard = ObjectsDidChangeRecorder(reader)
      defer { heard.stop() }
      let (isDeleted, deleted, title, error, registered) = await reader.perform {
        reader.mergeChanges(fromContextDidSave: note)
        let book = reader.registeredObject(for: id) as! Book
        if call == "refreshAllObjects" {
          reader.refreshAllObjects()
        } else {
          reader.refresh(book, mergeChanges: true)
        }
        let state = (book.isDeleted, reader.deletedObjects.map(\.objectID), book.title)
        let error = reader.saveError()
        return (state.0, state.1, state.2, error, reader.registeredObject(for: id) == nil)
      }
      #expect(isDeleted, "\(call) dropped the pending deletion")
      #expect(deleted == [id])
      #expect(title == "Dune")
      #expect(error == nil)
      #expect(registered, "the save finds the row gone and forgets the object")
      #expect(heard.all.map(\.deletedObjectIDs) == [[id]])
      #expect(heard.all.map(\.invalidatedObjectIDs).allSatisfy { $0.isEmpty })
      #expect(container.violations.isEmpty, "\(call): \(container.violations)")
    }
  }

  /// `rollback()` "discards all insertions and deletions": also the one a merge made. The object
  /// is a saved object again, with its last values, though its row is gone: a fetch does not
  /// return it, and an edit of it meets the store's deletion at save (a conflict under .error).
  @Test("rollback() undoes a merged deletion; the row stays gone for fetches and saves")
  func rollbackOfMergedDeletion() async throws {
    let container = makeContainer()
    let id = try await saveBook("Dune", in: container)
    let (reader, note) = try await Self.merged(id, in: container, registering: .loaded) {
      writer, book in writer.delete(book)
    }
    let result = try await reader.perform {
      reader.mergeChanges(fromContextDidSave: note)
      let book = reader.registeredObject(for: id) as! Book
      reader.rollback()
      let state = (book.isDeleted, reader.hasChanges, book.title)
      let fetched = try reader.fetch(FetchRequest<Book>()).count
      book.pages = 1
      return (state, fetched, reader.saveError())
    }
    #expect(!result.0.0 && !result.0.1 && result.0.2 == "Dune")
    #expect(result.1 == 0, "a fetch reads the store, where the row is gone")
    guard case .mergeConflict(let conflicts)? = result.2 else {
      Issue.record("expected a conflict, got \(String(describing: result.2))")
      return
    }
    #expect(conflicts.map(\.isDeletedInStore) == [true])
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  /// `reset()` forgets every object, the merged deletion too; the ID then names a deleted row.
  @Test("reset() after a merged deletion: nothing pending, and the ID names a deleted object")
  func resetAfterMergedDeletion() async throws {
    let container = makeContainer()
    let id = try await saveBook("Dune", in: container)
    let (reader, note) = try await Self.merged(id, in: container, registering: .loaded) {
      writer, book in writer.delete(book)
    }
    let (hasChanges, error) = await reader.perform { () -> (Bool, PersistenceError?) in
      reader.mergeChanges(fromContextDidSave: note)
      reader.reset()
      do throws(PersistenceError) {
        _ = try reader.existingObject(with: id)
        return (reader.hasChanges, nil)
      } catch {
        return (reader.hasChanges, error)
      }
    }
    #expect(!hasChanges)
    #expect(error == .objectDeleted(id))
  }

  // MARK: Rows another context deleted, not merged

  /// Core Data does not invalidate an object because its row is gone: refreshed, it becomes a
  /// fault that, when fired, comes back marked deleted (`shouldDeleteInaccessibleFaults`, true by
  /// default), and using it is no error. The core marks it a pending deletion at the refresh,
  /// keeping its last values (Tests/FIDELITY.md: a fault of a deleted row keeps the row it was
  /// made from), as a merge of that deletion would have.
  @Test("Refreshing an object whose row another context deleted makes it a pending deletion")
  func refreshOfRowDeletedElsewhere() async throws {
    for mergeChanges in [false, true] {
      let container = makeContainer("refreshOfRowDeletedElsewhere-\(mergeChanges)")
      let id = try await saveBook("Dune", in: container)
      let (reader, _) = try await Self.merged(id, in: container, registering: .loaded) {
        writer, book in writer.delete(book)
      }
      let heard = ObjectsDidChangeRecorder(reader)
      defer { heard.stop() }
      let result = await reader.perform {
        let book = reader.registeredObject(for: id) as! Book
        reader.refresh(book, mergeChanges: mergeChanges)
        let state = (book.isDeleted, book.managedObjectContext === reader, book.title)
        let error = reader.saveError()
        return (state, error, reader.registeredObject(for: id) == nil)
      }
      #expect(result.0.0, "mergeChanges \(mergeChanges): not marked deleted")
      #expect(result.0.1, "mergeChanges \(mergeChanges): the object was invalidated")
      #expect(result.0.2 == "Dune")
      #expect(result.1 == nil && result.2, "the save finds the row gone and forgets the object")
      #expect(heard.all.map(\.deletedObjectIDs) == [[id]])
      #expect(container.violations.isEmpty, "\(mergeChanges): \(container.violations)")
    }
  }

  // MARK: Local pending deletions and inserts (Core Data's behaviour not documented: pinned)

  /// Apple does not say whether a refresh undoes a deletion made in the context. The core keeps
  /// it pending: a refresh reloads values; `rollback()` is what undoes deletions. With false, the
  /// edits made before the deletion are discarded, as documented.
  @Test("Refreshing a pending deletion keeps it pending; without merging, its edits are dropped")
  func refreshOfPendingDeletion() async throws {
    for mergeChanges in [false, true] {
      let container = makeContainer("refreshOfPendingDeletion-\(mergeChanges)")
      let id = try await saveBook("Dune", in: container)
      let context = container.newBackgroundContext()
      let (isDeleted, pages) = try await context.perform {
        let book = try context.existingObject(with: id, as: Book.self)
        book.pages = 9
        context.delete(book)
        context.refresh(book, mergeChanges: mergeChanges)
        let state = (book.isDeleted, book.pages)
        try context.save()
        return state
      }
      #expect(isDeleted)
      #expect(pages == (mergeChanges ? 9 : 0))
      let count = try await container.performBackgroundTask {
        try $0.count(for: Book.fetchRequest())
      }
      #expect(count == 0, "the deletion was saved")
    }
  }

  /// An inserted object has no row to read again. Apple does not say what a refresh does to it;
  /// the core leaves it as it is, and posts nothing.
  @Test("Refreshing a pending insert changes nothing and posts nothing")
  func refreshOfPendingInsert() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let heard = ObjectsDidChangeRecorder(context)
    defer { heard.stop() }
    let (inserted, title) = try await context.perform {
      let book = Book(context: context)
      book.title = "new"
      context.refresh(book, mergeChanges: false)
      context.refresh(book, mergeChanges: true)
      context.refreshAllObjects()
      let state = (book.isInserted, book.title)
      try context.save()
      return state
    }
    #expect(inserted && title == "new")
    #expect(heard.all.isEmpty)
    #expect(try await storedBookTitles(in: container) == ["new"])
  }

  /// A child reads through its parent; when the parent rolls back the insert the child saw,
  /// there is no row left, in the parent or the store: the child's copy is invalid, and a later
  /// use is reported with that reason (`rollback()`: it "discards all insertions").
  @Test("Refreshing an object the parent no longer has invalidates it, and says why")
  func refreshOfObjectGoneFromParent() async throws {
    let container = makeContainer()
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    child.name = "child"
    let heard = ObjectsDidChangeRecorder(child)
    defer { heard.stop() }
    let id = await parent.perform {
      let book = Book(context: parent)
      book.title = "draft"
      return book.objectID
    }
    let (seen, book) = try await child.perform {
      let book = try child.existingObject(with: id, as: Book.self)
      return (book.title, Smuggled(book))
    }
    await parent.perform { parent.rollback() }
    await child.perform {
      child.refresh(book.value, mergeChanges: true)
      _ = book.value.title
    }
    #expect(seen == "draft")
    #expect(heard.all.map(\.invalidatedObjectIDs) == [[id]])
    let reasons = container.violations.map(\.location)
    #expect(reasons.count == 1 && reasons[0].contains("its parent context no longer has it"))
  }
}
