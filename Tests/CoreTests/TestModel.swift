import Foundation
import ManagedObjectCore

// The entities the core's own tests use.

// Quoted in Tests/FIDELITY.md ("Declaring an entity"): keep the two in step.
final class Book: ManagedObject {
  @Attribute var title: String  // required: saving while unset is a validation error
  @Attribute var pages: Int = 0  // with a default
  @Attribute var note: String?  // optional: nil by default
  @Relationship(inverse: "books") var author: Author?
}

final class Author: ManagedObject {
  @Attribute var name: String
  @Relationship(inverse: "author") var books: Set<Book>
}

/// One attribute of every supported type, with and without defaults.
final class Sample: ManagedObject {
  @Attribute var text: String = "text"
  @Attribute var count: Int = 0
  @Attribute var ratio: Double = 0.5
  @Attribute var flag: Bool = false
  @Attribute var when: Date = Date(timeIntervalSince1970: 0)
  @Attribute var uuid: UUID = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
  @Attribute var blob: Data = Data()
  @Attribute var optionalText: String?
  @Attribute var optionalCount: Int?
  @Attribute var required: String
}

/// A counter row, the shape of the read-modify-write examples.
final class Counter: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var value: Int = 0
  @Attribute var label: String = ""
}

/// One-to-one, to check that taking a partner away from someone else updates both.
final class Person: ManagedObject {
  @Attribute var name: String = ""
  @Relationship(inverse: "partner") var partner: Person?
}

func makeContainer(
  _ name: String = #function, checking: ConcurrencyCheckingPolicy = .record
) -> PersistentContainer {
  PersistentContainer(name: name, concurrencyChecking: checking)
}

extension ManagedObjectContext {
  /// Saves and returns the typed error instead of throwing it.
  func saveError() -> PersistenceError? {
    do throws(PersistenceError) {
      try save()
      return nil
    } catch {
      return error
    }
  }
}

/// Saves a new book from a fresh background context and returns its permanent ID.
func saveBook(_ title: String, in container: PersistentContainer) async throws -> ManagedObjectID {
  try await container.performBackgroundTask { context in
    let book = Book(context: context)
    book.title = title
    try context.save()
    return book.objectID
  }
}

/// Inserts the checker tests' seed into `context`: "Dune", 412 pages, by Frank Herbert. Call it
/// inside the context's perform; the caller saves.
func insertDune(in context: ManagedObjectContext) -> (author: Author, book: Book) {
  let author = Author(context: context)
  author.name = "Frank Herbert"
  let book = Book(context: context)
  book.title = "Dune"
  book.pages = 412
  book.author = author
  return (author, book)
}

/// Carries contexts and managed objects to code that breaks their confinement on purpose.
///
/// The checker, not the compiler, is under test in the matrix, stress and policy tests: they hand
/// non-Sendable objects to other threads so that the core can be seen to report it.
struct Smuggled<Value>: @unchecked Sendable {
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}

/// A container with two background contexts named "A" and "B", the shape most checker tests use.
func containerWithContextsAB(
  _ name: String, checking: ConcurrencyCheckingPolicy = .record
) -> (container: PersistentContainer, a: ManagedObjectContext, b: ManagedObjectContext) {
  let container = PersistentContainer(name: name, concurrencyChecking: checking)
  let a = container.newBackgroundContext()
  a.name = "A"
  let b = container.newBackgroundContext()
  b.name = "B"
  return (container, a, b)
}

/// An entity with a uniqueness constraint, for upserts.
final class Tag: ManagedObject {
  override class var uniquenessConstraints: [[String]] { [["name"]] }

  @Attribute var name: String
  @Attribute var uses: Int = 0
  @Attribute var color: String = "none"
}

/// The titles of the saved books, as a fresh context fetches them, sorted.
func storedBookTitles(in container: PersistentContainer) async throws -> [String] {
  try await container.performBackgroundTask { context in
    try context.fetch(FetchRequest<Book>(sortDescriptors: [SortDescriptor(\.title)]))
      .map(\.title)
  }
}
