import Foundation
import ManagedObjectCore
import Testing

/// A child saves an object its parent has unsaved edits of.
///
/// Apple: "If you save a child context, changes are pushed to its parent" (`NSManagedObjectContext`,
/// "Parent Store"); it does not say whether a child pushes its changed properties or its whole
/// object, nor that the parent's merge policy takes part. The core pushes the properties the
/// child changed: the parent keeps its own edits of the others, and on a property both changed,
/// the child's value, saved last, wins. Pinned here; Core Data's granularity is not established.
@Suite("A child's save over its parent's unsaved edit")
struct ChildSaveOverParentEditTests {
  @Test(
    "The parent keeps its edits of other properties; the child's value wins on a shared one",
    arguments: [false, true])
  func childSaveOverParentEdit(childReadFirst: Bool) async throws {
    let container = makeContainer("childSaveOverParentEdit-\(childReadFirst)")
    let id = try await saveBook("Dune", in: container)
    let parent = container.newBackgroundContext()
    let child = parent.newChildContext()
    if childReadFirst {
      // The child reads before the parent's edit: its copy is stale, and it saves no conflict.
      _ = try await child.perform { try child.existingObject(with: id, as: Book.self).title }
    }
    try await parent.perform {
      let book = try parent.existingObject(with: id, as: Book.self)
      book.note = "parent's note"
      book.pages = 1
    }
    try await child.perform {
      let book = try child.existingObject(with: id, as: Book.self)
      book.title = "child's title"
      book.pages = 2
      try child.save()
    }
    let values = try await parent.perform {
      let book = try parent.existingObject(with: id, as: Book.self)
      return [book.title, "\(book.pages)", book.note ?? "nil"]
    }
    #expect(values == ["child's title", "2", "parent's note"])
  }
}
