import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// A merge "invokes `delete(_:)` on those which have been deleted" (Apple,
/// `NSManagedObjectContext.mergeChanges(fromContextDidSave:)`): the merging context holds a
/// pending deletion, as if it had deleted the object itself. Its delete rules run at the end of
/// the event ("propagatesDeletesAtEndOfEvent"), its objects-did-change notification lists it as
/// deleted (`NSDeletedObjectsKey`), and its next save finds the row already gone.
@Suite("Merging another context's deletion deletes the object here")
struct MergedDeletionTests {
  /// Ann, with one saved book.
  private static func savedAuthor(
    in container: PersistentContainer
  ) async throws -> (author: ManagedObjectID, book: ManagedObjectID) {
    let context = container.newBackgroundContext()
    return try await context.perform {
      let author = Author(context: context)
      author.name = "Ann"
      let book = Book(context: context)
      book.title = "Saved"
      book.author = author
      try context.save()
      return (author.objectID, book.objectID)
    }
  }

  @Test(
    "An automatic merge of a deletion nullifies an unsaved object's link, and the save succeeds")
  func automaticMergeRunsDeleteRules() async throws {
    let container = makeContainer()
    let ids = try await Self.savedAuthor(in: container)
    let reader = container.newBackgroundContext()
    reader.automaticallyMergesChangesFromParent = true
    let heard = ObjectsDidChangeRecorder(reader)
    defer { heard.stop() }
    let draftID = try await reader.perform {
      let draft = Book(context: reader)
      draft.title = "Draft"
      draft.author = try reader.existingObject(with: ids.author, as: Author.self)
      return draft.objectID
    }

    let writer = container.newBackgroundContext()
    try await writer.perform {
      writer.delete(try writer.existingObject(with: ids.author))
      try writer.save()
    }
    #expect(await heard.first.opened(), "the reader merged the deletion")

    let seen = try await reader.perform {
      let author = try reader.existingObject(with: ids.author, as: Author.self)
      let draft = try reader.existingObject(with: draftID, as: Book.self)
      return (
        author.isDeleted, reader.deletedObjects.map(\.objectID), draft.author == nil,
        reader.hasChanges
      )
    }
    #expect(seen.0, "the merged author is deleted in the reader")
    #expect(seen.1 == [ids.author])
    #expect(seen.2, "the delete rule (nullify) ran at the end of the merge's event")
    #expect(seen.3, "a pending deletion and an insert are unsaved changes")
    #expect(heard.all.first?.deletedObjectIDs == [ids.author])
    #expect(heard.all.first?.invalidatedObjectIDs == [])

    try await reader.perform { try reader.save() }
    let stored = container.newBackgroundContext()
    let books = try await stored.perform {
      try stored.fetch(FetchRequest<Book>()).map { "\($0.title) by \($0.author?.name ?? "nobody")" }
    }
    #expect(books.sorted() == ["Draft by nobody", "Saved by nobody"])
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("A child saves into its parent a deletion it merged from that parent's save")
  func childSavesMergedDeletion() async throws {
    let container = makeContainer()
    let ids = try await Self.savedAuthor(in: container)
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    child.retainsRegisteredObjects = true  // as an app holding it would
    child.automaticallyMergesChangesFromParent = true
    let heard = ObjectsDidChangeRecorder(child)
    defer { heard.stop() }
    _ = try await child.perform { try child.existingObject(with: ids.book, as: Book.self).title }

    try await parent.perform {
      parent.delete(try parent.existingObject(with: ids.book))
      try parent.save()
    }
    #expect(await heard.first.opened(), "the child merged its parent's save")

    let error = await child.perform { () -> PersistenceError? in
      let author = try? child.existingObject(with: ids.author, as: Author.self)
      author?.name = "Ann, edited"
      return child.saveError()
    }
    #expect(error == nil, "the parent has nothing left to delete, and takes the rest")
    let name = try await parent.perform {
      try parent.existingObject(with: ids.author, as: Author.self).name
    }
    #expect(name == "Ann, edited")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }
}
