import Foundation
import ManagedObjectCore
import Testing

/// A deletion a child's save pushes into its parent is the parent's pending deletion, and the
/// parent runs its delete rule, as for any deletion it holds.
///
/// Apple, `NSManagedObjectContext`, "Parent store": "If you save a child context, changes are
/// pushed to its parent"; `propagatesDeletesAtEndOfEvent`: true "if the receiver propagates
/// deletes at the end of the event in which a change was made, false if it propagates deletes
/// only during a save operation". The child's save is the event in which the parent's change was
/// made. The child ran the rule over what it had read; the parent may have linked the object
/// since (here the child read the author before the parent gave it a book), and the parent, then
/// its store, must not keep a book whose author is a deleted object. Found by the model-based test
/// (issue 24, item 2).
@Suite("A child's deletion runs the delete rule in the parent")
struct ChildDeletionRuleTests {
  @Test("The parent's book no longer names the author its child deleted")
  func parentNullifies() async throws {
    let container = makeContainer()
    let (authorID, bookID) = try await container.performBackgroundTask { context in
      let author = Author(context: context)
      author.name = "Frank Herbert"
      let book = Book(context: context)
      book.title = "Dune"
      try context.save()
      return (author.objectID, book.objectID)
    }
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    // The child reads the author while it has no books.
    _ = try await child.perform { try child.existingObject(with: authorID, as: Author.self).name }
    try await parent.perform {
      try parent.existingObject(with: bookID, as: Book.self).author =
        try parent.existingObject(with: authorID, as: Author.self)
    }
    try await child.perform {
      child.delete(try child.existingObject(with: authorID))
      try child.save()
    }
    let inParent = try await parent.perform {
      try parent.existingObject(with: bookID, as: Book.self).author?.objectID
    }
    #expect(inParent == nil, "the parent's book still names the author its child deleted")
  }
}
