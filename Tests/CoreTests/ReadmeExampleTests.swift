import Foundation
import ManagedObjectCore
import Testing

/// The core's examples in Tests/FIDELITY.md, run as they are printed there.
@Suite("The core's examples, as Tests/FIDELITY.md prints them")
struct ReadmeExampleTests {
  @Test("Using it: insert and save in one context, read by ID in another")
  func usingIt() async throws {
    // Quoted in Tests/FIDELITY.md ("Using it"): keep the two in step.
    let container = PersistentContainer(name: "Library")
    let context = container.newBackgroundContext()

    let id = try await context.perform {
      let book = Book(context: context)
      book.title = "Dune"
      try context.save()
      return book.objectID  // Sendable and permanent after the save
    }

    let reader = container.newBackgroundContext()
    let title = try await reader.perform {
      try reader.existingObject(with: id, as: Book.self).title
    }
    // End of the quote.
    #expect(title == "Dune")
    #expect(!id.isTemporaryID)
    #expect(container.violations.isEmpty)
  }

  @Test("The confinement checker: the violation message quoted in FIDELITY.md")
  func violationMessage() async throws {
    let container = PersistentContainer(name: "Library")
    let context = container.newBackgroundContext()
    context.name = "writer"
    let book = await context.perform { Book(context: context) }
    book.title = "Dune"  // outside perform: a violation
    let expected =
      "Confinement violation: write of Book.title (context 'writer') in a Swift task on the "
      + "cooperative thread pool, outside any perform block. Rule: A context and its managed objects "
      + "may only be used inside that context's perform or performAndWait block (for a main-queue "
      + "context, also on the main queue)."
    #expect(container.violations.map(\.description) == [expected])
  }
}
