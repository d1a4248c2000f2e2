import Dispatch
import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

// The confinement checker, pattern by pattern.
//
// Each row of the table is one way of touching a context or a managed object: where it runs,
// what it does, and whether Core Data's concurrency debugging would allow it. Every row builds
// its own container (policy `.record`), does its one access, and hands the container back; the
// test then checks that an illegal row recorded exactly one violation, described precisely, and
// that a legal row recorded none.
//
// Managed objects are not Sendable, so each row's closure creates everything it touches. Rows
// that need an object on another queue on purpose carry it in `Smuggled` (or a fixture that is
// unchecked for the same reason): a @Sendable perform block would not take it otherwise.

@Suite("Confinement checker matrix")
struct CheckerMatrixTests {
  @Test(
    "Each access pattern records exactly the violations it should", arguments: AccessPattern.all)
  func accessPattern(_ pattern: AccessPattern) async throws {
    let container = try await withTimeout(.seconds(10), "access pattern '\(pattern.name)'") {
      try await pattern.run(pattern.name)
    }
    try Self.verify(pattern, container.violations)
  }

  private static func verify(
    _ pattern: AccessPattern, _ observed: [ConcurrencyViolation]
  ) throws {
    let shown = describe(observed)
    guard let expected = pattern.expected else {
      #expect(
        observed.isEmpty,
        "'\(pattern.name)' is legal, yet \(observed.count) violation(s) were recorded:\n\(shown)")
      return
    }
    try #require(
      observed.count == 1,
      "'\(pattern.name)' must record exactly one violation (\(expected)); observed \(observed.count):\n\(shown)"
    )
    let violation = observed[0]
    #expect(violation.kind == expected.kind, "observed: \(violation)")
    #expect(violation.operation == expected.operation, "observed: \(violation)")
    #expect(violation.entity == expected.entity, "observed: \(violation)")
    #expect(violation.property == expected.property, "observed: \(violation)")
    #expect(violation.contextName == expected.contextName, "observed: \(violation)")
    #expect(
      violation.description.hasPrefix(expected.title),
      "the description should start with '\(expected.title)'; observed: \(violation)")
    #expect(
      violation.description.contains(expected.rulePhrase),
      "the description should state the rule ('\(expected.rulePhrase)'); observed: \(violation)")
    #expect(
      violation.description.contains(expected.subject),
      "the description should name what was touched ('\(expected.subject)'); observed: \(violation)"
    )
    #expect(
      violation.description.contains("(context '\(expected.contextName)')"),
      "the description should name the context; observed: \(violation)")
    for fragment in expected.location {
      #expect(
        violation.location.contains(fragment),
        "the location should say '\(fragment)'; observed location: '\(violation.location)'")
    }
  }

  @Test("The matrix covers every rule, every operation, and both outcomes")
  func coverage() {
    let patterns = AccessPattern.all
    let illegal = patterns.compactMap(\.expected)
    #expect(patterns.count >= 32, "only \(patterns.count) patterns")
    #expect(patterns.count - illegal.count >= 16, "only \(patterns.count - illegal.count) legal")
    let names = patterns.map(\.name)
    let duplicates = Dictionary(grouping: names) { $0 }.filter { $0.value.count > 1 }.keys
    #expect(duplicates.isEmpty, "duplicate pattern names: \(duplicates.sorted())")
    #expect(!names.contains { $0.contains("Step") }, "a pattern name contains a step filter")

    let kinds: Set<ConcurrencyViolation.Kind> = [
      .outsidePerform, .foreignContext, .invalidatedObject,
    ]
    #expect(Set(illegal.map(\.kind)) == kinds)
    let operations: Set<ConcurrencyViolation.Operation> = [
      .read, .write, .insert, .delete, .fetch, .count, .save, .rollback, .reset, .refresh,
      .existingObject, .obtainPermanentIDs, .mergeChanges, .inspectChanges, .execute,
    ]
    let missing = operations.subtracting(illegal.map(\.operation)).map(\.rawValue).sorted()
    #expect(missing.isEmpty, "operations no illegal pattern exercises: \(missing)")
  }
}

// MARK: - The table

/// What an illegal pattern must record.
struct ExpectedViolation: Sendable, CustomStringConvertible {
  let kind: ConcurrencyViolation.Kind
  let operation: ConcurrencyViolation.Operation
  let entity: String?
  let property: String?
  let contextName: String
  /// Fragments the violation's location must contain: where the access ran instead.
  let location: [String]

  init(
    _ kind: ConcurrencyViolation.Kind, _ operation: ConcurrencyViolation.Operation,
    _ entity: String?, _ property: String? = nil, in contextName: String, at location: String...
  ) {
    self.kind = kind
    self.operation = operation
    self.entity = entity
    self.property = property
    self.contextName = contextName
    self.location = location
  }

  /// The first words of the description, by kind.
  var title: String {
    switch kind {
    case .outsidePerform: "Confinement violation: "
    case .foreignContext: "Cross-context violation: "
    case .invalidatedObject: "Invalidated-object violation: "
    }
  }

  /// The rule as the slides state it, written out here so that a changed rule fails the test.
  var rulePhrase: String {
    switch kind {
    case .outsidePerform:
      "Rule: A context and its managed objects may only be used inside that context's perform "
        + "or performAndWait block"
    case .foreignContext:
      "Rule: A managed object belongs to one context; to use it elsewhere, pass its objectID"
    case .invalidatedObject:
      "Rule: An object is invalid after its context was reset or its deletion was saved"
    }
  }

  var subject: String {
    switch (entity, property) {
    case (let entity?, let property?): "\(operation.rawValue) of \(entity).\(property)"
    case (let entity?, nil): "\(operation.rawValue) of \(entity)"
    default: operation.rawValue
    }
  }

  var description: String { "\(kind) \(subject) in '\(contextName)'" }
}

/// One row of the matrix: a name, the expected outcome, and the access itself.
struct AccessPattern: Sendable, Identifiable, CustomTestStringConvertible {
  let name: String
  /// nil when the pattern is legal.
  let expected: ExpectedViolation?
  /// Builds a fresh container named after the pattern, does the access, returns the container.
  let run: @Sendable (_ name: String) async throws -> PersistentContainer

  var id: String { name }
  var testDescription: String { (expected == nil ? "legal: " : "illegal: ") + name }

  static func legal(
    _ name: String,
    _ run: @escaping @Sendable (String) async throws -> PersistentContainer
  ) -> AccessPattern {
    AccessPattern(name: name, expected: nil, run: run)
  }

  static func illegal(
    _ name: String, _ expected: ExpectedViolation,
    _ run: @escaping @Sendable (String) async throws -> PersistentContainer
  ) -> AccessPattern {
    AccessPattern(name: name, expected: expected, run: run)
  }

  static let all: [AccessPattern] =
    legalPatterns + outsidePerformPatterns + placePatterns
    + crossContextPatterns + invalidatedPatterns
}

// MARK: Legal patterns

extension AccessPattern {
  fileprivate static let legalPatterns: [AccessPattern] = [
    .legal("attribute get inside perform") { name in
      let f = try await fixture(name)
      let title = await f.a.perform { f.book.title }
      try check(title == "Dune", "read '\(title)' instead of 'Dune'")
      return f.container
    },
    .legal("attribute set inside perform, then save") { name in
      let f = try await fixture(name)
      let id = f.book.objectID
      try await f.a.perform {
        f.book.pages = 500
        try f.a.save()
      }
      let stored = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      try check(stored == 500, "the store holds \(stored) pages instead of 500")
      return f.container
    },
    .legal("insert inside perform") { name in
      let f = try await fixture(name)
      let count = try await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        let author = f.a.insertNewObject(of: Author.self)
        author.name = "Jane Austen"
        book.author = author
        try f.a.save()
        return try f.a.count(for: FetchRequest<Book>())
      }
      try check(count == 2, "counted \(count) books instead of 2")
      return f.container
    },
    .legal("delete inside perform, then save") { name in
      let f = try await fixture(name)
      let (wasDeleted, remaining) = try await f.a.perform {
        f.a.delete(f.book)
        let wasDeleted = f.book.isDeleted
        try f.a.save()
        return (wasDeleted, try f.a.count(for: FetchRequest<Book>()))
      }
      try check(wasDeleted, "isDeleted was false after delete")
      try check(remaining == 0, "\(remaining) books remain after the deletion was saved")
      return f.container
    },
    .legal("fetch with predicate and sort inside perform") { name in
      let f = try await fixture(name)
      let titles = try await f.a.perform {
        for title in ["Emma", "Beloved"] {
          let book = Book(context: f.a)
          book.title = title
          book.pages = 300
        }
        let request = FetchRequest<Book>(
          predicate: #Predicate<Book> { $0.pages < 400 },
          sortDescriptors: [SortDescriptor(\Book.title)])
        return try f.a.fetch(request).map(\.title)
      }
      try check(titles == ["Beloved", "Emma"], "fetched \(titles)")
      return f.container
    },
    .legal("count inside another context's perform") { name in
      let f = try await fixture(name)
      let count = try await f.b.perform { try f.b.count(for: FetchRequest<Author>()) }
      try check(count == 1, "counted \(count) authors instead of 1")
      return f.container
    },
    .legal("rollback inside perform") { name in
      let f = try await fixture(name)
      let pages = await f.a.perform {
        f.book.pages = 1
        f.a.rollback()
        return f.book.pages
      }
      try check(pages == 412, "rollback left \(pages) pages instead of 412")
      return f.container
    },
    .legal("reset inside perform, then refetch by objectID") { name in
      let f = try await fixture(name)
      let id = f.book.objectID
      let title = try await f.a.perform {
        f.a.reset()
        return try f.a.existingObject(with: id, as: Book.self).title
      }
      try check(title == "Dune", "refetched '\(title)'")
      return f.container
    },
    .legal("refresh inside perform") { name in
      let f = try await fixture(name)
      let id = f.book.objectID
      try await f.b.perform {
        try f.b.existingObject(with: id, as: Book.self).pages = 999
        try f.b.save()
      }
      let pages = await f.a.perform {
        f.a.refresh(f.book, mergeChanges: false)
        return f.book.pages
      }
      try check(pages == 999, "refresh left \(pages) pages instead of 999")
      return f.container
    },
    .legal("existingObject in another context inside its perform") { name in
      let f = try await fixture(name)
      let id = f.book.objectID
      let (title, isB) = try await f.b.perform {
        let book = try f.b.existingObject(with: id, as: Book.self)
        return (book.title, book.managedObjectContext === f.b)
      }
      try check(title == "Dune" && isB, "refetched '\(title)', belongs to B: \(isB)")
      return f.container
    },
    .legal("existingObject with another context's temporary ID throws, not a violation") {
      name in
      let f = try await fixture(name)
      let temporary = await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        return book.objectID
      }
      let error = await f.b.perform { () -> PersistenceError? in
        do throws(PersistenceError) {
          _ = try f.b.existingObject(with: temporary)
          return nil
        } catch {
          return error
        }
      }
      try check(
        error == .temporaryIDOutsideItsContext(temporary), "threw \(String(describing: error))")
      return f.container
    },
    .legal("obtainPermanentIDs inside perform") { name in
      let f = try await fixture(name)
      let (before, after) = await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        let before = book.objectID.isTemporaryID
        f.a.obtainPermanentIDs(for: [book])
        return (before, book.objectID.isTemporaryID)
      }
      try check(before && !after, "temporary before: \(before), after: \(after)")
      return f.container
    },
    .legal("isInserted, isDeleted, hasChanges, changedValues inside perform") { name in
      let f = try await fixture(name)
      let problems = await f.a.perform {
        var problems: [String] = []
        let fresh = Book(context: f.a)
        fresh.title = "Emma"
        f.book.pages = 413
        if !fresh.isInserted { problems.append("a new object is not isInserted") }
        if f.book.isDeleted { problems.append("an updated object is isDeleted") }
        if !f.book.hasChanges { problems.append("an updated object has no changes") }
        if !f.a.hasChanges { problems.append("the context has no changes") }
        let changed = f.book.changedValues()
        if changed["pages"] as? Int != 413 || changed.count != 1 {
          problems.append("changedValues() is \(changed)")
        }
        if f.a.insertedObjects != [fresh] { problems.append("insertedObjects is wrong") }
        if f.a.updatedObjects != [f.book] { problems.append("updatedObjects is wrong") }
        if !f.a.deletedObjects.isEmpty { problems.append("deletedObjects is not empty") }
        return problems
      }
      try check(problems.isEmpty, problems.joined(separator: "; "))
      return f.container
    },
    .legal("relationship get and set inside perform") { name in
      let f = try await fixture(name)
      let problems = await f.a.perform {
        var problems: [String] = []
        if f.book.author !== f.author { problems.append("book.author is not the saved author") }
        let other = Author(context: f.a)
        other.name = "Brian Herbert"
        f.book.author = other
        if f.book.author !== other { problems.append("book.author was not set") }
        if other.books != [f.book] { problems.append("the new inverse was not set") }
        if !f.author.books.isEmpty { problems.append("the old inverse was not cleared") }
        return problems
      }
      try check(problems.isEmpty, problems.joined(separator: "; "))
      return f.container
    },
    .legal("merging a save notification inside perform") { name in
      let f = try await fixture(name)
      let id = f.book.objectID
      _ = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      var notes = f.container.saveNotifications().makeAsyncIterator()
      try await f.a.perform {
        f.book.pages = 600
        try f.a.save()
      }
      guard let note = await notes.next() else { throw PatternFailure("no save notification") }
      let pages = try await f.b.perform {
        f.b.mergeChanges(fromContextDidSave: note)
        return try f.b.existingObject(with: id, as: Book.self).pages
      }
      try check(pages == 600, "after the merge B sees \(pages) pages instead of 600")
      return f.container
    },
    .legal("automatic merge into another context, then read inside its perform") { name in
      let f = try await fixture(name)
      let id = f.book.objectID
      f.b.automaticallyMergesChangesFromParent = true
      _ = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      try await f.a.perform {
        f.book.pages = 700
        try f.a.save()
      }
      // The merge is enqueued on B's queue by A's save: an enqueued perform runs after it.
      let pages = try await f.b.perform(schedule: .enqueued) {
        try f.b.existingObject(with: id, as: Book.self).pages
      }
      try check(pages == 700, "after the automatic merge B sees \(pages) pages instead of 700")
      return f.container
    },
    .legal("existingObject with another store's ID throws, not a violation") { name in
      let f = try await fixture(name)
      let other = PersistentContainer(name: name + " (other store)", concurrencyChecking: .record)
      let foreignID = try await other.performBackgroundTask { context in
        let book = Book(context: context)
        book.title = "Emma"
        try context.save()
        return book.objectID
      }
      let error = await f.a.perform { () -> PersistenceError? in
        do throws(PersistenceError) {
          _ = try f.a.existingObject(with: foreignID)
          return nil
        } catch {
          return error
        }
      }
      try check(error == .foreignStore(foreignID), "threw \(String(describing: error))")
      try check(other.violations.isEmpty, "the other store recorded \(other.violations)")
      return f.container
    },
    .legal("performAndWait from a plain DispatchQueue") { name in
      let f = try await fixture(name)
      let container = f.container
      let fixture = Smuggled(f)
      let title = try await offThePool(on: DispatchQueue(label: "CheckerMatrix.plain-queue")) {
        let f = fixture.value
        return f.a.performAndWait {
          f.book.pages = 7
          return f.book.title
        }
      }
      try check(title == "Dune", "read '\(title)'")
      return container
    },
    .legal("performAndWait inside the same context's perform runs inline") { name in
      let f = try await fixture(name)
      let title = await f.a.perform(schedule: .enqueued) {
        f.a.performAndWait { f.book.title }
      }
      try check(title == "Dune", "read '\(title)'")
      return f.container
    },
    .legal("nested performAndWait of B inside A's perform, touching A") { name in
      let f = try await fixture(name)
      let (pages, count) = try await f.a.perform {
        let count = try f.b.performAndWait {
          f.book.pages += 1
          return try f.a.count(for: FetchRequest<Book>())
        }
        return (f.book.pages, count)
      }
      try check(pages == 413 && count == 1, "pages \(pages), count \(count)")
      return f.container
    },
    .legal("nested performAndWait of B inside A's perform, touching B") { name in
      let f = try await fixture(name)
      let id = f.book.objectID
      let pages = try await f.a.perform {
        try f.b.performAndWait {
          let mine = try f.b.existingObject(with: id, as: Book.self)
          mine.pages = 512
          try f.b.save()
          return try f.b.existingObject(with: id, as: Book.self).pages
        }
      }
      try check(pages == 512, "B saved \(pages) pages instead of 512")
      return f.container
    },
    .legal("performAndWait A, then B, then A again is reentrant") { name in
      let f = try await fixture(name)
      let container = f.container
      let fixture = Smuggled(f)
      let title = try await offThePool(on: DispatchQueue(label: "CheckerMatrix.plain-queue")) {
        let f = fixture.value
        return f.a.performAndWait { f.b.performAndWait { f.a.performAndWait { f.book.title } } }
      }
      try check(title == "Dune", "read '\(title)'")
      return container
    },
    .legal("viewContext used directly on the main actor") { name in
      try await mainActorUsesViewContext(name)
    },
    .legal("viewContext object touched in a performAndWait of B started on the main actor") {
      name in
      try await mainActorNestsBackgroundPerformAndWait(name, throughViewContext: false)
    },
    .legal(
      "viewContext object touched in a performAndWait of B nested in viewContext.performAndWait"
    ) { name in
      try await mainActorNestsBackgroundPerformAndWait(name, throughViewContext: true)
    },
    .legal("viewContext used through perform from a detached task") { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let count = try await Task.detached {
        let view = container.viewContext
        return try await view.perform {
          let book = Book(context: view)
          book.title = "Dune"
          try view.save()
          return try view.count(for: FetchRequest<Book>())
        }
      }.value
      try check(count == 1, "counted \(count) books in the viewContext")
      return container
    },
    .legal("viewContext performAndWait from a plain DispatchQueue") { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let count = try await offThePool(on: DispatchQueue(label: "CheckerMatrix.plain-queue")) {
        let view = container.viewContext
        return try view.performAndWait {
          let book = Book(context: view)
          book.title = "Dune"
          try view.save()
          return try view.count(for: FetchRequest<Book>())
        }
      }
      try check(count == 1, "counted \(count) books in the viewContext")
      return container
    },
    .legal("performBackgroundTask") { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let count = try await container.performBackgroundTask { context in
        let book = Book(context: context)
        book.title = "Dune"
        try context.save()
        return try context.count(for: FetchRequest<Book>())
      }
      try check(count == 1, "counted \(count) books")
      return container
    },
    .legal("thread-safe members outside perform") { name in
      let f = try await fixture(name)
      var problems: [String] = []
      let id = f.book.objectID
      if id.isTemporaryID { problems.append("a saved object has a temporary ID") }
      if f.book.managedObjectContext !== f.a { problems.append("managedObjectContext is not A") }
      if f.a.name != "A" { problems.append("name is \(String(describing: f.a.name))") }
      f.a.mergePolicy = .mergeByPropertyObjectTrump
      if f.a.mergePolicy != .mergeByPropertyObjectTrump { problems.append("mergePolicy") }
      f.a.automaticallyMergesChangesFromParent = false
      if f.a.concurrencyType != .privateQueue { problems.append("concurrencyType") }
      if !f.book.description.contains(id.description) { problems.append("description") }
      if Set([f.book, f.book]).count != 1 || f.book != f.book { problems.append("hashing") }
      if f.container.viewContext.name != "viewContext" { problems.append("viewContext name") }
      if f.container.concurrencyCheckingPolicy != .record { problems.append("policy") }
      _ = f.container.newBackgroundContext()
      _ = f.container.violations
      enqueue(on: f.a) { f.book.pages = 1 }
      let pages = await f.a.perform(schedule: .enqueued) { f.book.pages }
      if pages != 1 { problems.append("the fire-and-forget perform did not run first") }
      try check(problems.isEmpty, problems.joined(separator: "; "))
      return f.container
    },
    .legal("thread-safe members of an invalidated object") { name in
      let f = try await fixture(name)
      await f.a.perform { f.a.reset() }
      let id = f.book.objectID
      try check(f.book.managedObjectContext == nil, "a reset object still has a context")
      try check(!id.isTemporaryID, "the ID became temporary")
      try check(f.book.description.contains(id.description), "description: \(f.book)")
      return f.container
    },
  ]
}

// MARK: Illegal: outside perform

extension AccessPattern {
  fileprivate static let outsidePerformPatterns: [AccessPattern] = [
    .illegal(
      "batch insert outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      try f.a.execute(BatchInsertRequest<Book>(objects: [["title": "Batched"]]))
      let count = try await f.b.perform { try f.b.count(for: FetchRequest<Book>()) }
      try check(count == 2, "the recorded batch insert did not carry on: \(count) books")
      return f.container
    },
    .illegal(
      "batch update outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      try f.a.execute(BatchUpdateRequest<Book>(propertiesToUpdate: ["pages": 2]))
      return f.container
    },
    .illegal(
      "batch delete outside perform",
      .init(.outsidePerform, .execute, "Book", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      try f.a.execute(BatchDeleteRequest(fetchRequest: FetchRequest<Book>()))
      return f.container
    },
    .illegal(
      "dictionary fetch outside perform",
      .init(.outsidePerform, .fetch, "Book", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      let rows = try f.a.fetchDictionaries(FetchRequest<Book>())
      try check(rows.count == 1, "the recorded fetch returned \(rows.count) rows")
      return f.container
    },
    .illegal(
      "child context save outside perform",
      .init(.outsidePerform, .save, nil, in: "child of A", at: "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      let child = f.a.newChildContext()
      child.name = "child of A"
      try child.save()
      return f.container
    },
    .legal("child context made and saved inside its perform, parent saved in its own") { name in
      let f = try await fixture(name)
      let child = f.a.newChildContext()
      try await child.perform {
        Book(context: child).title = "from the child"
        try child.save()
      }
      try await f.a.perform { try f.a.save() }
      let count = try await f.b.perform { try f.b.count(for: FetchRequest<Book>()) }
      try check(count == 2, "the store holds \(count) books instead of 2")
      return f.container
    },
    .legal("batch update inside perform") { name in
      let f = try await fixture(name)
      let updated = try await f.a.perform {
        try f.a.execute(
          BatchUpdateRequest<Book>(propertiesToUpdate: ["pages": 1])
        ).count
      }
      try check(updated == nil, "a status-only result reported a count")
      return f.container
    },
    .illegal(
      "attribute get outside perform",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A",
        at: "in a Swift task", "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      let title = f.book.title
      try check(title == "Dune", "the checked read returned '\(title)'")
      return f.container
    },
    .illegal(
      "attribute set outside perform",
      .init(.outsidePerform, .write, "Book", "pages", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      f.book.pages = 1
      let pages = await f.a.perform { f.book.pages }
      try check(pages == 1, "the recorded write did not carry on: \(pages) pages")
      return f.container
    },
    .illegal(
      "insert with init(context:) outside perform",
      .init(.outsidePerform, .insert, "Book", in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = Book(context: f.a)
      return f.container
    },
    .illegal(
      "insertNewObject outside perform", .init(.outsidePerform, .insert, "Author", in: "A")
    ) { name in
      let f = try await fixture(name)
      f.a.insertNewObject(of: Author.self)
      return f.container
    },
    .illegal("delete outside perform", .init(.outsidePerform, .delete, "Book", in: "A")) { name in
      let f = try await fixture(name)
      f.a.delete(f.book)
      return f.container
    },
    .illegal(
      "fetch with a predicate outside perform", .init(.outsidePerform, .fetch, "Book", in: "A")
    ) { name in
      let f = try await fixture(name)
      let found = try f.a.fetch(FetchRequest<Book>(predicate: #Predicate<Book> { $0.pages > 100 }))
      try check(found.count == 1, "fetched \(found.count) books")
      return f.container
    },
    .illegal(
      "fetchObjectIDs with a sort outside perform",
      .init(.outsidePerform, .fetch, "Book", in: "A")
    ) { name in
      let f = try await fixture(name)
      let ids = try f.a.fetchObjectIDs(
        FetchRequest<Book>(sortDescriptors: [SortDescriptor(\Book.title)]))
      try check(ids == [f.book.objectID], "fetched \(ids)")
      return f.container
    },
    .illegal("count outside perform", .init(.outsidePerform, .count, "Author", in: "A")) { name in
      let f = try await fixture(name)
      let count = try f.a.count(for: FetchRequest<Author>())
      try check(count == 1, "counted \(count)")
      return f.container
    },
    .illegal("save outside perform", .init(.outsidePerform, .save, nil, in: "A")) { name in
      let f = try await fixture(name)
      let id = f.book.objectID
      await f.a.perform { f.book.pages = 1 }
      try f.a.save()
      let stored = try await f.b.perform { try f.b.existingObject(with: id, as: Book.self).pages }
      try check(stored == 1, "the recorded save did not reach the store: \(stored) pages")
      return f.container
    },
    .illegal("rollback outside perform", .init(.outsidePerform, .rollback, nil, in: "A")) { name in
      let f = try await fixture(name)
      await f.a.perform { f.book.pages = 1 }
      f.a.rollback()
      return f.container
    },
    .illegal("reset outside perform", .init(.outsidePerform, .reset, nil, in: "A")) { name in
      let f = try await fixture(name)
      f.a.reset()
      return f.container
    },
    .illegal("refresh outside perform", .init(.outsidePerform, .refresh, "Book", in: "A")) {
      name in
      let f = try await fixture(name)
      f.a.refresh(f.book, mergeChanges: true)
      return f.container
    },
    .illegal(
      "existingObject outside perform", .init(.outsidePerform, .existingObject, "Book", in: "B")
    ) { name in
      let f = try await fixture(name)
      _ = try f.b.existingObject(with: f.book.objectID)
      return f.container
    },
    .illegal(
      "obtainPermanentIDs outside perform",
      .init(.outsidePerform, .obtainPermanentIDs, nil, in: "A")
    ) { name in
      let f = try await fixture(name)
      let fresh = await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        return book
      }
      f.a.obtainPermanentIDs(for: [fresh])
      return f.container
    },
    .illegal(
      "isInserted outside perform", .init(.outsidePerform, .inspectChanges, "Book", in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = f.book.isInserted
      return f.container
    },
    .illegal(
      "isDeleted outside perform", .init(.outsidePerform, .inspectChanges, "Book", in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = f.book.isDeleted
      return f.container
    },
    .illegal(
      "object hasChanges outside perform",
      .init(.outsidePerform, .inspectChanges, "Author", in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = f.author.hasChanges
      return f.container
    },
    .illegal(
      "changedValues outside perform", .init(.outsidePerform, .inspectChanges, "Book", in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = f.book.changedValues()
      return f.container
    },
    .illegal(
      "context hasChanges outside perform", .init(.outsidePerform, .inspectChanges, nil, in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = f.a.hasChanges
      return f.container
    },
    .illegal(
      "registeredObjects outside perform", .init(.outsidePerform, .inspectChanges, nil, in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = f.a.registeredObjects
      return f.container
    },
    .illegal(
      "to-one relationship get outside perform",
      .init(.outsidePerform, .read, "Book", "author", in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = f.book.author
      return f.container
    },
    .illegal(
      "to-many relationship get outside perform",
      .init(.outsidePerform, .read, "Author", "books", in: "A")
    ) { name in
      let f = try await fixture(name)
      _ = f.author.books
      return f.container
    },
    .illegal(
      "to-one relationship set outside perform",
      .init(.outsidePerform, .write, "Book", "author", in: "A")
    ) { name in
      let f = try await fixture(name)
      f.book.author = nil
      return f.container
    },
    .illegal(
      "to-many relationship set outside perform",
      .init(.outsidePerform, .write, "Author", "books", in: "A")
    ) { name in
      let f = try await fixture(name)
      f.author.books = []
      return f.container
    },
    .illegal(
      "mergeChanges outside perform", .init(.outsidePerform, .mergeChanges, nil, in: "B")
    ) { name in
      let f = try await fixture(name)
      var notes = f.container.saveNotifications().makeAsyncIterator()
      try await f.a.perform {
        f.book.pages = 600
        try f.a.save()
      }
      guard let note = await notes.next() else { throw PatternFailure("no save notification") }
      f.b.mergeChanges(fromContextDidSave: note)
      return f.container
    },
  ]
}

// MARK: Illegal: the wrong place (tasks, queues, the main actor, another context's perform)

extension AccessPattern {
  fileprivate static let placePatterns: [AccessPattern] = [
    .illegal(
      "attribute get from a Task",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "in a Swift task")
    ) { name in
      let f = try await fixture(name)
      let container = f.container
      let book = f.book
      await Task { _ = book.title }.value
      return container
    },
    .illegal(
      "attribute set from Task.detached",
      .init(.outsidePerform, .write, "Book", "pages", in: "A", at: "in a Swift task")
    ) { name in
      let f = try await fixture(name)
      let container = f.container
      let book = f.book
      await Task.detached { book.pages = 2 }.value
      return container
    },
    .illegal(
      "attribute get from a plain DispatchQueue",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      let book = Smuggled(f.book)
      try await offThePool(on: DispatchQueue(label: "CheckerMatrix.plain-queue")) {
        _ = book.value.title
      }
      return f.container
    },
    .illegal(
      "fetch from DispatchQueue.global()",
      .init(.outsidePerform, .fetch, "Author", in: "A", at: "outside any perform block")
    ) { name in
      let f = try await fixture(name)
      let context = Smuggled(f.a)
      let count = try await offThePool {
        try context.value.fetch(FetchRequest<Author>()).count
      }
      try check(count == 1, "fetched \(count) authors")
      return f.container
    },
    .illegal(
      "background context's object read on the main actor",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "on the main queue")
    ) { name in
      try await mainActorReadsBackgroundObject(name)
    },
    .illegal(
      "insert into a background context on the main actor",
      .init(.outsidePerform, .insert, "Book", in: "A", at: "on the main queue")
    ) { name in
      try await mainActorInsertsIntoBackgroundContext(name)
    },
    .illegal(
      "viewContext object read from a detached task",
      .init(.outsidePerform, .read, "Book", "title", in: "viewContext", at: "in a Swift task")
    ) { name in
      let (container, book) = try await viewFixture(name)
      await Task.detached { _ = book.title }.value
      return container
    },
    .illegal(
      "viewContext save from a detached task",
      .init(.outsidePerform, .save, nil, in: "viewContext", at: "in a Swift task")
    ) { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      try await Task.detached { try container.viewContext.save() }.value
      return container
    },
    .illegal(
      "viewContext insert from DispatchQueue.global()",
      .init(.outsidePerform, .insert, "Author", in: "viewContext", at: "outside any perform block")
    ) { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      try await offThePool {
        _ = container.viewContext.insertNewObject(of: Author.self)
      }
      return container
    },
    .illegal(
      "viewContext object read inside a background context's perform",
      .init(.outsidePerform, .read, "Book", "title", in: "viewContext", at: "inside perform of 'B'")
    ) { name in
      let (container, book) = try await viewFixture(name)
      let b = container.newBackgroundContext()
      b.name = "B"
      let smuggled = Smuggled(book)
      await b.perform { _ = smuggled.value.title }
      return container
    },
    .illegal(
      "A's object read in B's fire-and-forget perform enqueued from A's perform",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "inside perform of 'B'")
    ) { name in
      let f = try await fixture(name)
      await f.a.perform {
        enqueue(on: f.b) { _ = f.book.title }
      }
      // B's queue is serial: this runs after the block enqueued above.
      await f.b.perform(schedule: .enqueued) {}
      return f.container
    },
    .illegal(
      "A's object written in an awaited perform of B",
      .init(.outsidePerform, .write, "Book", "pages", in: "A", at: "inside perform of 'B'")
    ) { name in
      let f = try await fixture(name)
      await f.b.perform { f.book.pages = 3 }
      return f.container
    },
    .illegal(
      "A's object read in B's performAndWait started outside A",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "inside perform of 'B'")
    ) { name in
      let f = try await fixture(name)
      let container = f.container
      let fixture = Smuggled(f)
      try await offThePool(on: DispatchQueue(label: "CheckerMatrix.plain-queue")) {
        let f = fixture.value
        f.b.performAndWait { _ = f.book.title }
      }
      return container
    },
    .illegal(
      "object of performBackgroundTask used after the block",
      .init(.outsidePerform, .read, "Book", "title", in: "worker")
    ) { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let book = try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Smuggled<Book>, any Error>) in
        container.performBackgroundTask { context in
          context.name = "worker"
          let book = Book(context: context)
          book.title = "Dune"
          do {
            try context.save()
            continuation.resume(returning: Smuggled(book))
          } catch {
            continuation.resume(throwing: error)
          }
        }
      }
      _ = book.value.title
      return container
    },
  ]
}

// MARK: Illegal: another context's object

extension AccessPattern {
  fileprivate static let crossContextPatterns: [AccessPattern] = [
    .illegal(
      "relating objects of two contexts inside perform",
      .init(.foreignContext, .write, "Book", "author", in: "B", at: "used with context 'A'")
    ) { name in
      let f = try await fixture(name)
      let id = f.author.objectID
      let foreignAuthor = try await f.b.perform {
        Smuggled(try f.b.existingObject(with: id, as: Author.self))
      }
      let kept = await f.a.perform {
        f.book.author = foreignAuthor.value
        return f.book.author === f.author
      }
      try check(kept, "the cross-context relationship was set anyway")
      return f.container
    },
    .illegal(
      "relating objects of two contexts inside nested performAndWait",
      .init(
        .foreignContext, .write, "Book", "author", in: "B",
        at: "used with context 'A'", "inside perform of 'A', 'B'")
    ) { name in
      let f = try await fixture(name)
      let id = f.author.objectID
      try await f.a.perform {
        try f.b.performAndWait {
          f.book.author = try f.b.existingObject(with: id, as: Author.self)
        }
      }
      return f.container
    },
    .illegal(
      "deleting an object with a context it does not belong to",
      .init(.foreignContext, .delete, "Book", in: "A", at: "used with context 'B'")
    ) { name in
      let f = try await fixture(name)
      await f.b.perform { f.b.delete(f.book) }
      let deleted = await f.a.perform { f.book.isDeleted }
      try check(!deleted, "B's delete marked A's object as deleted")
      return f.container
    },
    .illegal(
      "refreshing an object with a context it does not belong to",
      .init(.foreignContext, .refresh, "Book", in: "A", at: "used with context 'B'")
    ) { name in
      let f = try await fixture(name)
      await f.b.perform { f.b.refresh(f.book, mergeChanges: false) }
      return f.container
    },
    .illegal(
      "obtainPermanentIDs with a context the object does not belong to",
      .init(.foreignContext, .obtainPermanentIDs, nil, in: "A", at: "used with context 'B'")
    ) { name in
      let f = try await fixture(name)
      let fresh = await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        return Smuggled(book)
      }
      await f.b.perform { f.b.obtainPermanentIDs(for: [fresh.value]) }
      try check(fresh.value.objectID.isTemporaryID, "B gave A's object a permanent ID")
      return f.container
    },
  ]
}

// MARK: Illegal: invalidated objects

extension AccessPattern {
  fileprivate static let invalidatedPatterns: [AccessPattern] = [
    .illegal(
      "attribute get after reset",
      .init(
        .invalidatedObject, .read, "Book", "title", in: "A",
        at: "after its context was reset", "inside perform of 'A'")
    ) { name in
      let f = try await fixture(name)
      await f.a.perform {
        f.a.reset()
        _ = f.book.title
      }
      return f.container
    },
    .illegal(
      "attribute set after its deletion was saved",
      .init(
        .invalidatedObject, .write, "Book", "pages", in: "A", at: "after its deletion was saved")
    ) { name in
      let f = try await fixture(name)
      try await f.a.perform {
        f.a.delete(f.book)
        try f.a.save()
        f.book.pages = 1
      }
      return f.container
    },
    .illegal(
      "relating to an object invalidated by reset",
      .init(
        .invalidatedObject, .write, "Book", "author", in: "A", at: "after its context was reset")
    ) { name in
      let f = try await fixture(name)
      await f.a.perform {
        f.a.reset()
        let fresh = Book(context: f.a)
        fresh.title = "Children of Dune"
        fresh.author = f.author
      }
      return f.container
    },
    .illegal(
      "deleting an object invalidated by reset",
      .init(.invalidatedObject, .delete, "Book", in: "A", at: "after its context was reset")
    ) { name in
      let f = try await fixture(name)
      await f.a.perform {
        f.a.reset()
        f.a.delete(f.book)
      }
      return f.container
    },
    .illegal(
      "refreshing an object whose deletion was saved",
      .init(.invalidatedObject, .refresh, "Book", in: "A", at: "after its deletion was saved")
    ) { name in
      let f = try await fixture(name)
      try await f.a.perform {
        f.a.delete(f.book)
        try f.a.save()
        f.a.refresh(f.book, mergeChanges: false)
      }
      return f.container
    },
  ]
}

// MARK: - Fixtures and helpers

/// A container with two background contexts named "A" and "B"; in A, a saved book by a saved
/// author. Setting it up is legal: it records no violation.
/// Unchecked on purpose: the matrix breaks confinement to see the checker report it, and since
/// perform blocks are `@Sendable` and managed objects are not, breaking it starts with a lie to
/// the compiler, as an app's `@unchecked Sendable` class would tell.
private struct Fixture: @unchecked Sendable {
  let container: PersistentContainer
  let a: ManagedObjectContext
  let b: ManagedObjectContext
  /// "Frank Herbert", in A.
  let author: Author
  /// "Dune", 412 pages, by `author`, in A.
  let book: Book
}

private func fixture(
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

/// A container whose viewContext holds a saved book, set up through the viewContext's perform.
private func viewFixture(
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

@MainActor
private func mainActorUsesViewContext(_ name: String) throws -> PersistentContainer {
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
private func mainActorNestsBackgroundPerformAndWait(
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
private func mainActorReadsBackgroundObject(_ name: String) async throws -> PersistentContainer {
  let f = try await fixture(name)
  _ = f.book.title
  return f.container
}

@MainActor
private func mainActorInsertsIntoBackgroundContext(
  _ name: String
) async throws -> PersistentContainer {
  let f = try await fixture(name)
  _ = Book(context: f.a)
  return f.container
}

/// Calls the fire-and-forget `perform(_:)`: in async code, `perform { }` means the async one.
private func enqueue(on context: ManagedObjectContext, _ block: @escaping @Sendable () -> Void) {
  context.perform(block)
}

/// A pattern's own check failed: the access did not do what it should have.
private struct PatternFailure: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}

private func check(_ condition: Bool, _ observed: @autoclosure () -> String) throws {
  if !condition { throw PatternFailure(observed()) }
}

private func describe(_ violations: [ConcurrencyViolation]) -> String {
  violations.isEmpty ? "  (none)" : violations.map { "  - \($0)" }.joined(separator: "\n")
}
