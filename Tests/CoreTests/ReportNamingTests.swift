import ManagedObjectCore
import Testing
import WorkshopSupport

/// A report names a context by its name when the report is made, wherever it names it: in its
/// context field and in its location ("inside perform of '…'"). A block that names its own context
/// (`performBackgroundTask`'s contexts start unnamed) is called by that name from then on.
@Suite("A report names each context once, by its current name")
struct ReportNamingTests {
  /// A saved book in a context named "owner", and that context, holding the book.
  private static func ownedBook(
    in container: PersistentContainer
  ) async throws -> (owner: ManagedObjectContext, book: Smuggled<Book>) {
    let owner = container.newBackgroundContext()
    owner.name = "owner"
    let book = try await owner.perform {
      let book = Book(context: owner)
      book.title = "Owned"
      try owner.save()
      return Smuggled(book)
    }
    return (owner, book)
  }

  @Test("A block that names its context first is 'inside perform of' that name")
  func locationUsesTheNameSetInTheBlock() async throws {
    let container = makeContainer()
    let (_, book) = try await Self.ownedBook(in: container)
    await container.performBackgroundTask { context in
      context.name = "worker"
      _ = book.value.title  // the owner's object, inside the worker's block
    }
    let violation = try #require(container.violations.first)
    #expect(container.violations.count == 1)
    #expect(violation.contextName == "owner")
    #expect(violation.location == "inside perform of 'worker'", "\(violation)")
  }

  @Test("Used with another context, the object's report names that context by its new name too")
  func foreignUseNamesTheRenamedContextTwiceTheSame() async throws {
    let container = makeContainer()
    let (_, book) = try await Self.ownedBook(in: container)
    await container.performBackgroundTask { context in
      context.name = "worker"
      context.delete(book.value)
    }
    let violation = try #require(container.violations.first)
    #expect(violation.kind == .foreignContext)
    #expect(violation.contextName == "owner")
    #expect(
      violation.location == "used with context 'worker', inside perform of 'worker'",
      "\(violation)")
  }

  @Test("Renamed while its block runs, a context is named anew in a nested performAndWait")
  func nestedFrameFollowsTheRename() async throws {
    let container = makeContainer()
    let (owner, book) = try await Self.ownedBook(in: container)
    let outer = container.newBackgroundContext()
    outer.name = "before"
    await outer.perform {
      outer.name = "after"
      owner.performAndWait {
        owner.name = "owner, renamed"
        _ = book.value.title  // legal: inside the owner's performAndWait
      }
      _ = book.value.title  // not legal here
    }
    let violation = try #require(container.violations.first)
    #expect(container.violations.count == 1)
    #expect(violation.contextName == "owner, renamed")
    #expect(violation.location == "inside perform of 'after'", "\(violation)")
  }
}
