import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Merging a batch delete's object IDs removes the objects from memory. Apple,
/// `NSBatchDeleteRequest`: "NSManagedObjectContext doesn't automatically merge a request's
/// deletions because they happen at the SQL level. Subsequently, you must remove any deleted
/// objects from memory after the request finishes", with
/// `mergeChanges(fromRemoteContextSave: [NSDeletedObjectsKey: objectIDs], into: [context])` as
/// the way; Core Data Batch Programming Guide, "Implementing Batch Deletes": "After a batch delete
/// has been executed, remove any objects in memory that have been deleted from the persistent
/// store." So the merged context forgets them: no pending deletion, nothing left to save.
/// (`mergeChanges(fromContextDidSave:)` is another call with other words, "invokes `delete(_:)`",
/// and keeps doing so: `MergedDeletionTests`.)
@Suite("Merging a batch delete's IDs removes the objects from the context")
struct RemoteMergeDeletionTests {
  /// Three counters, read into `reader` (the first edited there, unsaved), then batch-deleted:
  /// the delete's changes, and the first counter as `reader` holds it.
  private static func batchDeleted(
    in container: PersistentContainer, reader: ManagedObjectContext
  ) async throws -> (changes: ContextDidSave, first: Smuggled<Counter>) {
    let setup = container.newBackgroundContext()
    _ = try await setup.perform {
      try setup.execute(
        BatchInsertRequest<Counter>(objects: (0..<3).map { ["name": "c\($0)", "value": $0] }))
    }
    let first = try await reader.perform {
      let counters = try reader.fetch(
        FetchRequest<Counter>(sortDescriptors: [SortDescriptor(\.value)]))
      counters[0].label = "edited here"
      return Smuggled(counters[0])
    }
    let result = try await setup.perform {
      var request = BatchDeleteRequest(fetchRequest: FetchRequest<Counter>())
      request.resultType = .objectIDs
      return try setup.execute(request)
    }
    return (try #require(result.changes), first)
  }

  @Test("The merged context holds no pending deletion and nothing to save")
  func removedNotPendingDeletion() async throws {
    let container = makeContainer()
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    let (changes, _) = try await Self.batchDeleted(in: container, reader: reader)
    let heard = ObjectsDidChangeRecorder(reader)
    defer { heard.stop() }

    ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reader])
    let seen = try await reader.perform {
      let state = (
        registered: reader.registeredObjects.count, deleted: reader.deletedObjects.count,
        hasChanges: reader.hasChanges
      )
      try reader.save()
      return state
    }
    #expect(seen.registered == 0, "\"remove any deleted objects from memory\"")
    #expect(seen.deleted == 0, "not pending deletions: their rows are already gone")
    #expect(!seen.hasChanges, "the unsaved edit went with its object")
    #expect(heard.all.map(\.deletedObjectIDs) == [changes.deletedObjectIDs])
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("A removed object no longer belongs to a context, and using it is reported")
  func removedObjectIsInvalid() async throws {
    let container = makeContainer()
    let reader = container.newBackgroundContext()
    let (changes, kept) = try await Self.batchDeleted(in: container, reader: reader)
    ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reader])
    let orphaned = await reader.perform {
      let counter = kept.value
      let orphaned = counter.managedObjectContext == nil
      _ = counter.value  // a read of an object that is gone
      return orphaned
    }
    #expect(orphaned)
    let kinds = container.violations.map(\.kind)
    #expect(kinds == [.invalidatedObject], "\(container.violations)")
    #expect(
      container.violations.first?.location.hasPrefix("after a merge removed it") == true,
      "\(container.violations)")
  }

  @Test("An object that pointed at a removed one finds nothing there, and has no change to save")
  func linksResolveToNothing() async throws {
    let container = makeContainer()
    let writer = container.newBackgroundContext()
    let authorID = try await writer.perform {
      let author = Author(context: writer)
      author.name = "Ann"
      let book = Book(context: writer)
      book.title = "Gone"
      book.author = author
      try writer.save()
      return author.objectID
    }
    let reader = container.newBackgroundContext()
    let before = try await reader.perform {
      try reader.existingObject(with: authorID, as: Author.self).books.count
    }
    let changes = try await writer.perform {
      var request = BatchDeleteRequest(fetchRequest: FetchRequest<Book>())
      request.resultType = .objectIDs
      return try #require(try writer.execute(request).changes)
    }
    ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reader])
    let after = try await reader.perform {
      (
        try reader.existingObject(with: authorID, as: Author.self).books.count,
        reader.hasChanges
      )
    }
    #expect(before == 1)
    #expect(after.0 == 0, "the link leads to a row that is gone, as it does in the store")
    #expect(!after.1, "the merge wrote nothing: the author is as the store has it")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }
}
