import ManagedObjectCore
import WorkshopSupport

// Mutating a property in place (`author.books.insert(book)`, `book.pages += 1`) is two uses in
// Swift: a get, then a set of the whole value. Core Data's generated `@NSManaged` properties are
// accessors too, so with -com.apple.CoreData.ConcurrencyDebug 1 the get is already the use from
// the wrong queue. Outside perform the core reports both, one per operation; inside perform only
// the set can break a rule (relating another context's object).

extension CheckerEdgeCase {
  static let inPlaceMutationCases: [CheckerEdgeCase] = [
    .illegal(
      "to-many set mutated in place outside perform",
      .init(.outsidePerform, .read, "Author", "books", in: "A", at: "outside any perform block"),
      .init(.outsidePerform, .write, "Author", "books", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      let fresh = await f.a.perform { Smuggled(Book(context: f.a)) }
      f.author.books.insert(fresh.value)
      let count = await f.a.perform { f.author.books.count }
      try AccessPattern.check(count == 2, "the recorded mutation did not carry on: \(count) books")
      return f.container
    },
    .illegal(
      "attribute incremented outside perform",
      .init(.outsidePerform, .read, "Book", "pages", in: "A", at: "outside any perform block"),
      .init(.outsidePerform, .write, "Book", "pages", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      f.book.pages += 1
      return f.container
    },
    .illegal(
      "to-many set of A mutated in place with B's object inside A's perform",
      .init(
        .foreignContext, .write, "Author", "books", in: "B", at: "used with context 'A'",
        "inside perform of 'A'")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      let theirs = await f.b.perform {
        let book = Book(context: f.b)
        book.title = "Emma"
        return Smuggled(book)
      }
      let count = await f.a.perform {
        f.author.books.insert(theirs.value)
        return f.author.books.count
      }
      try AccessPattern.check(count == 1, "B's object was related to A's author: \(count) books")
      return f.container
    },
    .legal("to-many set mutated in place inside perform") { name in
      let f = try await AccessPattern.fixture(name)
      let titles = await f.a.perform {
        let fresh = Book(context: f.a)
        fresh.title = "Dune Messiah"
        f.author.books.insert(fresh)
        f.author.books.remove(f.book)
        return (f.author.books.map(\.title), f.book.author == nil, fresh.author === f.author)
      }
      try AccessPattern.check(
        titles.0 == ["Dune Messiah"] && titles.1 && titles.2, "after the mutation: \(titles)")
      return f.container
    },
  ]
}
