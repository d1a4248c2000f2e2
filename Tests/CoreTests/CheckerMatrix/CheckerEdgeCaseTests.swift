import Dispatch
import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

// The confinement checker's edge cases, in the shape of the matrix (CheckerMatrixTests): each
// row is one access, where it runs, and the violations Core Data's concurrency debugging
// (-com.apple.CoreData.ConcurrencyDebug 1) would report for it, in order; none for a legal row.
// Rows here may expect more than one violation: a batch insert's handler runs inside `execute`,
// and each illegal use in it is a use of its own.
//
// The rule, as Apple states it (Core Data Programming Guide, "Concurrency",
// https://developer.apple.com/library/archive/documentation/Cocoa/Conceptual/CoreData/Concurrency.html):
// a private-queue context "can be used only on that queue", through perform and performAndWait;
// a main-queue context "can only be used on the main queue of an application". The debug flag
// reports a use "from the wrong dispatch queue" (Ole Begemann, "Core Data Concurrency
// Debugging", https://oleb.net/blog/2014/06/core-data-concurrency-debugging/).

@Suite("Confinement checker edge cases")
struct CheckerEdgeCaseTests {
  @Test(
    "Each edge case records exactly the violations it should", arguments: CheckerEdgeCase.all)
  func edgeCase(_ edge: CheckerEdgeCase) async throws {
    let container = try await withTimeout(.seconds(10), "edge case '\(edge.name)'") {
      try await edge.run(edge.name)
    }
    try Self.verify(edge, container.violations)
  }

  // Inside a serial queue's `sync` in A's perform, A is not in scope, yet A's queue is held by
  // the very thread that runs the block: Core Data's performAndWait is reentrant ("safe to call
  // the method again, from within the closure", NSManagedObjectContext.performAndWait(_:)),
  // so it must run inline. Dispatching instead does not fail, it ends the process ("dispatch_sync
  // called on queue already owned by current thread" on Linux) or deadlocks (Darwin): the row
  // runs in a child process.
  @Test("performAndWait re-entered inside a serial queue's sync in its context's perform")
  func reentrantPerformAndWaitInsideSync() async {
    await withExitTestOffThePool {
      await #expect(
        processExitsWith: .success, "the nested performAndWait must run inline, and legally"
      ) {
        let (title, violations) = try await withTimeout(.seconds(10), "reentrant performAndWait") {
          let f = try await AccessPattern.fixture("reentrant performAndWait inside sync")
          let lock = DispatchQueue(label: "CheckerEdge.lock")
          let title = await f.a.perform { lock.sync { f.a.performAndWait { f.book.title } } }
          return (title, f.container.violations)
        }
        try AccessPattern.check(title == "Dune", "read '\(title)'")
        try AccessPattern.check(violations.isEmpty, "recorded \(violations)")
      }
    }
  }

  private static func verify(_ edge: CheckerEdgeCase, _ observed: [ConcurrencyViolation]) throws {
    let shown = observed.isEmpty ? "  (none)" : observed.map { "  - \($0)" }.joined(separator: "\n")
    try #require(
      observed.count == edge.expected.count,
      "'\(edge.name)' must record \(edge.expected.count) violation(s) \(edge.expected); observed \(observed.count):\n\(shown)"
    )
    for (expected, violation) in zip(edge.expected, observed) { expected.verify(violation) }
  }
}

// MARK: - The table

/// One edge case: a name, the violations it must record (none when legal), and the access.
struct CheckerEdgeCase: Sendable, CustomTestStringConvertible {
  let name: String
  let expected: [ExpectedViolation]
  /// Builds a fresh container named after the case, does the access, returns the container.
  let run: @Sendable (_ name: String) async throws -> PersistentContainer

  var testDescription: String { (expected.isEmpty ? "legal: " : "illegal: ") + name }

  static func legal(
    _ name: String, _ run: @escaping @Sendable (String) async throws -> PersistentContainer
  ) -> CheckerEdgeCase {
    CheckerEdgeCase(name: name, expected: [], run: run)
  }

  static func illegal(
    _ name: String, _ expected: ExpectedViolation...,
    run: @escaping @Sendable (String) async throws -> PersistentContainer
  ) -> CheckerEdgeCase {
    CheckerEdgeCase(name: name, expected: expected, run: run)
  }

  static let all: [CheckerEdgeCase] =
    batchHandlerCases + isFaultCases + syncDispatchCases + inPlaceMutationCases
}

// MARK: Batch insert handlers

// Core Data "repeatedly calls the provided closure until it returns true" while it executes the
// request (NSBatchInsertRequest, init(entity:managedObjectHandler:) and
// init(entity:dictionaryHandler:),
// developer.apple.com/documentation/coredata/nsbatchinsertrequest):
// the handler runs where `execute` was called. Called outside perform, the `execute` is one
// illegal use, and every other object of the context the handler reads is another. Filling the
// scratch object the request hands the handler is part of the execute: no use of its own.

extension CheckerEdgeCase {
  fileprivate static let batchHandlerCases: [CheckerEdgeCase] = [
    .illegal(
      "batch insert whose object handler reads another object, executed outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block"),
      .init(.outsidePerform, .read, "Author", "name", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      var rows = 0
      try f.a.execute(
        BatchInsertRequest<Book>(managedObjectHandler: { book in
          guard rows == 0 else { return true }
          rows += 1
          book.title = "Dune Messiah, by " + f.author.name
          return false
        }))
      let titles = try await storedBookTitles(in: f.container)
      try AccessPattern.check(
        titles == ["Dune", "Dune Messiah, by Frank Herbert"],
        "the recorded batch insert did not carry on: \(titles)")
      return f.container
    },
    .illegal(
      "batch insert whose dictionary handler reads another object, executed outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block"),
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      var rows = 0
      try f.a.execute(
        BatchInsertRequest<Book>(dictionaryHandler: { row in
          guard rows == 0 else { return true }
          rows += 1
          row["title"] = f.book.title + " Messiah"
          return false
        }))
      let titles = try await storedBookTitles(in: f.container)
      try AccessPattern.check(
        titles == ["Dune", "Dune Messiah"], "the batch insert stored \(titles)")
      return f.container
    },
    .illegal(
      "batch insert whose object handler only fills its scratch object, executed outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      var rows = 0
      try f.a.execute(
        BatchInsertRequest<Book>(managedObjectHandler: { book in
          guard rows < 2 else { return true }
          rows += 1
          book.title = "Volume \(rows)"
          book.pages = book.pages + rows
          return false
        }))
      let titles = try await storedBookTitles(in: f.container)
      try AccessPattern.check(
        titles == ["Dune", "Volume 1", "Volume 2"], "the batch insert stored \(titles)")
      return f.container
    },
    .illegal(
      "batch insert's scratch object kept, then written outside perform",
      .init(.outsidePerform, .write, "Book", "title", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      let kept = Kept<Book>()
      let result = try await f.a.perform {
        try f.a.execute(
          BatchInsertRequest<Book>(managedObjectHandler: { book in
            kept.value = book
            return true
          }))
      }
      try AccessPattern.check(result.count == nil, "a status-only result reported a count")
      // The request allows the scratch object to its handler only, not to whoever kept it.
      kept.value?.title = "Kept"
      try AccessPattern.check(kept.value != nil, "the handler was not called")
      return f.container
    },
    .legal("batch insert whose handlers read other objects, executed inside perform") { name in
      let f = try await AccessPattern.fixture(name)
      try await f.a.perform {
        var objectRows = 0
        try f.a.execute(
          BatchInsertRequest<Book>(managedObjectHandler: { book in
            guard objectRows == 0 else { return true }
            objectRows += 1
            book.title = "Children of " + f.book.title
            book.pages = f.book.pages
            return false
          }))
        var dictionaryRows = 0
        try f.a.execute(
          BatchInsertRequest<Book>(dictionaryHandler: { row in
            guard dictionaryRows == 0 else { return true }
            dictionaryRows += 1
            row["title"] = "God Emperor, by " + f.author.name
            return false
          }))
      }
      let titles = try await storedBookTitles(in: f.container)
      try AccessPattern.check(
        titles == ["Children of Dune", "Dune", "God Emperor, by Frank Herbert"],
        "the batch inserts stored \(titles)")
      return f.container
    },
  ]
}

// MARK: isFault, like its siblings

// isFault is a question about one object, like isInserted (NSManagedObject.isFault and
// .isInserted, developer.apple.com/documentation/coredata/nsmanagedobject/isfault and
// /isinserted): asked outside perform it is a use outside perform, and after reset() the object is
// invalid ("you should ensure that you also discard references to any managed objects fetched
// using the receiver, since they will be invalid afterwards", NSManagedObjectContext.reset(),
// developer.apple.com/documentation/coredata/nsmanagedobjectcontext/reset()). Asking must not
// load the object: knowing whether it is a fault "can also be used to avoid growing the object
// graph unnecessarily" (isFault).

extension CheckerEdgeCase {
  fileprivate static let isFaultCases: [CheckerEdgeCase] = [
    .illegal(
      "isFault after reset",
      .init(
        .invalidatedObject, .inspectChanges, "Book", in: "A",
        at: "after its context was reset", "inside perform of 'A'")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      await f.a.perform {
        f.a.reset()
        _ = f.book.isFault
      }
      return f.container
    },
    .illegal(
      "isFault after its deletion was saved",
      .init(
        .invalidatedObject, .inspectChanges, "Book", in: "A",
        at: "after its deletion was saved")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      try await f.a.perform {
        f.a.delete(f.book)
        try f.a.save()
        _ = f.book.isFault
      }
      return f.container
    },
    .illegal(
      "isFault outside perform",
      .init(.outsidePerform, .inspectChanges, "Book", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await AccessPattern.fixture(name)
      _ = f.book.isFault
      return f.container
    },
    .legal("isFault inside perform asks without loading the object") { name in
      let f = try await AccessPattern.fixture(name)
      let (before, again, title, after) = try await f.b.perform {
        var request = FetchRequest<Book>()
        request.fetchBatchSize = 10
        let book = try f.b.fetch(request)[0]
        let before = book.isFault
        let again = book.isFault
        let title = book.title
        return (before, again, title, book.isFault)
      }
      try AccessPattern.check(
        before && again, "asking isFault loaded the object (\(before), \(again))")
      try AccessPattern.check(
        title == "Dune" && !after, "reading did not load the object: '\(title)', \(after)")
      return f.container
    },
  ]
}

// MARK: - Fixtures and helpers

/// Keeps what a handler hands out, past the handler: the mistake one row makes on purpose.
private final class Kept<Value>: @unchecked Sendable {
  var value: Value?
}
