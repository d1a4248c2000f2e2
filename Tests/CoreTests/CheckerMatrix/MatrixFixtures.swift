import Dispatch
import ManagedObjectCore
import WorkshopSupport

// What the matrix's rows share: the fixtures they start from, the main-actor bodies, and the
// rows' own checks. Members of `AccessPattern`, so that the rows call them unqualified and no
// other file of the module sees them by accident.

extension AccessPattern {
  /// A container with two background contexts named "A" and "B"; in A, a saved book by a saved
  /// author. Setting it up is legal: it records no violation.
  /// Unchecked on purpose: the matrix breaks confinement to see the checker report it, and since
  /// perform blocks are `@Sendable` and managed objects are not, breaking it starts with a lie to
  /// the compiler, as an app's `@unchecked Sendable` class would tell.
  struct Fixture: @unchecked Sendable {
    let container: PersistentContainer
    let a: ManagedObjectContext
    let b: ManagedObjectContext
    /// "Frank Herbert", in A.
    let author: Author
    /// "Dune", 412 pages, by `author`, in A.
    let book: Book
  }

  static func fixture(
    _ name: String, isolation: isolated (any Actor)? = #isolation
  ) async throws -> Fixture {
    let (container, a, b) = containerWithContextsAB(name, checking: .record)
    let (author, book) = try await a.perform {
      let seed = insertDune(in: a)
      try a.save()
      return seed
    }
    return Fixture(container: container, a: a, b: b, author: author, book: book)
  }

  /// B's copy of the fixture's book, registered in B, and the notification of A's save that
  /// deleted it: what B merges to take the deletion.
  static func bookDeletedByA(
    in f: Fixture
  ) async throws -> (theirs: Smuggled<Book>, note: ContextDidSave) {
    let id = f.book.objectID
    let theirs = try await f.b.perform {
      Smuggled(try f.b.existingObject(with: id, as: Book.self))
    }
    var notes = f.container.saveNotifications().makeAsyncIterator()
    try await f.a.perform {
      f.a.delete(f.book)
      try f.a.save()
    }
    guard let note = await notes.next() else { throw PatternFailure("no save notification") }
    return (theirs, note)
  }

  /// A container whose viewContext holds a saved book, set up through the viewContext's perform.
  static func viewFixture(
    _ name: String, isolation: isolated (any Actor)? = #isolation
  ) async throws -> (PersistentContainer, Book) {
    let container = PersistentContainer(name: name, concurrencyChecking: .record)
    let view = container.viewContext
    let book = try await view.perform {
      let book = Book(context: view)
      book.title = "Dune"
      try view.save()
      return book
    }
    return (container, book)
  }

  /// Inserts a book, "Dune", into `context`, saves, and counts the books; inside the context's
  /// perform, a legal use.
  static func saveDuneAndCount(in context: ManagedObjectContext) throws -> Int {
    let book = Book(context: context)
    book.title = "Dune"
    try context.save()
    return try context.count(for: FetchRequest<Book>())
  }

  @MainActor
  static func mainActorUsesViewContext(_ name: String) throws -> PersistentContainer {
    let container = PersistentContainer(name: name, concurrencyChecking: .record)
    let view = container.viewContext
    let book = Book(context: view)
    book.title = "Dune"
    try view.save()
    book.pages = 10
    let count = try view.count(for: FetchRequest<Book>())
    try check(count == 1 && book.title == "Dune", "counted \(count), read '\(book.title)'")
    try check(view.hasChanges, "the viewContext lost its pending change")
    return container
  }

  /// Main-queue code blocks in B's performAndWait: inside, it may still use the viewContext, as
  /// code in a performAndWait nested in the viewContext's own performAndWait may.
  @MainActor
  static func mainActorNestsBackgroundPerformAndWait(
    _ name: String, throughViewContext: Bool
  ) async throws -> PersistentContainer {
    let container = PersistentContainer(name: name, concurrencyChecking: .record)
    let view = container.viewContext
    let book = Book(context: view)
    book.title = "Dune"
    let smuggled = Smuggled(book)
    let b = container.newBackgroundContext()
    b.name = "B"
    let title =
      throughViewContext
      ? view.performAndWait { b.performAndWait { smuggled.value.title } }
      : b.performAndWait { smuggled.value.title }
    try check(title == "Dune", "read '\(title)'")
    return container
  }

  @MainActor
  static func mainActorReadsBackgroundObject(_ name: String) async throws -> PersistentContainer {
    let f = try await fixture(name)
    _ = f.book.title
    return f.container
  }

  @MainActor
  static func mainActorInsertsIntoBackgroundContext(
    _ name: String
  ) async throws -> PersistentContainer {
    let f = try await fixture(name)
    _ = Book(context: f.a)
    return f.container
  }

  /// What `existingObject(with:)` throws inside `context`'s perform, or nil.
  static func existingObjectError(
    _ id: ManagedObjectID, in context: ManagedObjectContext
  ) async -> PersistenceError? {
    await context.perform { () -> PersistenceError? in
      do throws(PersistenceError) {
        _ = try context.existingObject(with: id)
        return nil
      } catch {
        return error
      }
    }
  }

  /// Runs `work` on a plain Dispatch queue of its own: in no perform block and no Swift task.
  static func onPlainQueue<Value: Sendable>(
    _ work: @escaping @Sendable () throws -> Value
  ) async throws -> Value {
    try await offThePool(on: DispatchQueue(label: "CheckerMatrix.plain-queue"), work)
  }

  /// A pattern's own check failed: the access did not do what it should have.
  struct PatternFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
      self.description = description
    }
  }

  static func check(_ condition: Bool, _ observed: @autoclosure () -> String) throws {
    if !condition { throw PatternFailure(observed()) }
  }
}
