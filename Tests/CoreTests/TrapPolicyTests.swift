import Dispatch
import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

@Suite("Concurrency checking policies")
struct TrapPolicyTests {
  // Exit tests need Swift 6.2, and capturing values in them (`[breach]`) 6.3's Testing.
  @Test(
    "Under .trap an illegal access ends the process, naming the violation",
    arguments: Breach.allCases)
  func trapEndsTheProcess(_ breach: Breach) async {
    let result = await withExitTestOffThePool {
      await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent],
        "under .trap, '\(breach)' must stop the process"
      ) { [breach] in
        try await withTimeout(.seconds(10), "the breach '\(breach)'") {
          try await breach.commit()
        }
        // Only reached when the access did not trap.
        FileHandle.standardError.write(Data("\(Breach.survivedMarker)\n".utf8))
      }
    }
    guard let result else { return }  // the failed expectation already says how it exited
    let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
    // The process must have died of the checker's trap, not of anything else (a timeout, say).
    #expect(
      standardError.contains("Fatal error: \(breach.expectedMessage)"),
      "the child's standard error should hold 'Fatal error: \(breach.expectedMessage)'; it was:\n\(standardError)"
    )
    #expect(
      standardError.contains("Rule: "),
      "the trap message should state the rule:\n\(standardError)")
    #expect(!standardError.contains(Breach.survivedMarker))
  }

  @Test("Under .trap legal access runs to the end")
  func trapAllowsLegalAccess() async {
    await withExitTestOffThePool {
      await #expect(
        processExitsWith: .success, "legal work under .trap must not stop the process"
      ) {
        let container = try await withTimeout(.seconds(10), "legal work under .trap") {
          try await legalWorkload(.trap)
        }
        guard container.concurrencyCheckingPolicy == .trap else { throw PolicyFailure("policy") }
      }
    }
  }

  @Test("The legal workload is legal: under .record it records nothing")
  func legalWorkloadIsLegal() async throws {
    // If this fails, the exit test above dies for the reason shown here.
    let container = try await withTimeout(.seconds(10), "legal work under .record") {
      try await legalWorkload(.record)
    }
    #expect(
      container.violations.isEmpty,
      "the legal workload recorded:\n\(describe(container.violations))")
  }

  @Test("Under .off nothing is recorded and illegal access carries on")
  func offRecordsNothing() async throws {
    let outcome = try await withTimeout(.seconds(10), "illegal work under .off") {
      try await illegalWorkload(.off)
    }
    #expect(outcome.policy == .off)
    #expect(
      outcome.violations.isEmpty, "under .off, recorded:\n\(describe(outcome.violations))")
    #expect(
      outcome.problems.isEmpty,
      "observed:\n\(outcome.problems.map { "  - \($0)" }.joined(separator: "\n"))")
  }

  @Test("The same illegal workload under .record records each access exactly once")
  func recordCountsEachAccess() async throws {
    let outcome = try await withTimeout(.seconds(10), "illegal work under .record") {
      try await illegalWorkload(.record)
    }
    #expect(
      outcome.problems.isEmpty,
      "observed:\n\(outcome.problems.map { "  - \($0)" }.joined(separator: "\n"))")
    let observed = outcome.violations.map { "\($0.kind) \($0.subject) in '\($0.contextName)'" }
    #expect(
      observed == IllegalWorkload.expected,
      "recorded:\n\(describe(outcome.violations))")
  }
}

// MARK: - Breaches that must trap

/// One illegal access, run in a child process whose container traps.
enum Breach: String, CaseIterable, Codable, Sendable, CustomTestStringConvertible {
  case readOutsidePerform
  case writeFromDispatchQueue
  case saveOutsidePerform
  case viewContextFromDetachedTask
  case relateAcrossContexts
  case readAfterReset

  static let survivedMarker = "SURVIVED-THE-ILLEGAL-ACCESS"

  var testDescription: String { rawValue }

  /// The start of the violation's description, as the trap prints it.
  var expectedMessage: String {
    switch self {
    case .readOutsidePerform: "Confinement violation: read of Book.title (context 'A')"
    case .writeFromDispatchQueue: "Confinement violation: write of Book.pages (context 'A')"
    case .saveOutsidePerform: "Confinement violation: save (context 'A')"
    case .viewContextFromDetachedTask:
      "Confinement violation: insert of Book (context 'viewContext')"
    case .relateAcrossContexts: "Cross-context violation: write of Book.author (context 'B')"
    case .readAfterReset: "Invalidated-object violation: read of Book.title (context 'A')"
    }
  }

  /// Sets up legally (which must not trap), then breaks the rule once.
  func commit() async throws {
    let (container, a, b) = containerWithContextsAB("trap \(rawValue)", checking: .trap)
    let book = try await a.perform {
      let book = Book(context: a)
      book.title = "Dune"
      try a.save()
      return book
    }
    // Blocks below that break the rule have to smuggle the object in: they are @Sendable.
    let kept = Smuggled(book)
    switch self {
    case .readOutsidePerform:
      _ = book.title
    case .writeFromDispatchQueue:
      let smuggled = Smuggled(book)
      await withCheckedContinuation { continuation in
        DispatchQueue(label: "TrapPolicy.plain-queue").async {
          smuggled.value.pages = 1
          continuation.resume()
        }
      }
    case .saveOutsidePerform:
      await a.perform { kept.value.pages = 2 }
      try a.save()
    case .viewContextFromDetachedTask:
      try await Task.detached {
        let view = container.viewContext
        Book(context: view).title = "Emma"
        try view.save()
      }.value
    case .relateAcrossContexts:
      let id = try await b.perform {
        let author = Author(context: b)
        author.name = "Frank Herbert"
        try b.save()
        return author.objectID
      }
      let author = try await b.perform {
        Smuggled(try b.existingObject(with: id, as: Author.self))
      }
      await a.perform { kept.value.author = author.value }
    case .readAfterReset:
      await a.perform {
        a.reset()
        _ = kept.value.title
      }
    }
  }
}

// MARK: - Workloads

/// Legal use of every kind the checker knows: must record nothing and never trap.
private func legalWorkload(_ policy: ConcurrencyCheckingPolicy) async throws
  -> PersistentContainer
{
  let (container, a, b) = containerWithContextsAB("legal \(policy)", checking: policy)
  b.automaticallyMergesChangesFromParent = true

  let (book, bookID) = try await a.perform {
    let book = insertDune(in: a).book
    a.obtainPermanentIDs(for: [book])
    try a.save()
    let found = try a.fetch(
      FetchRequest<Book>(
        predicate: #Predicate<Book> { $0.pages > 100 },
        sortDescriptors: [SortDescriptor(\Book.title)]))
    guard found == [book], try a.count(for: FetchRequest<Author>()) == 1 else {
      throw PolicyFailure("fetched \(found.count) books")
    }
    return (book, book.objectID)
  }

  // Nested performAndWait: B's block may touch A, which is blocked waiting for it. Legal at run
  // time; the compiler still wants the object smuggled into the @Sendable block.
  let outer = Smuggled(book)
  let pages = try await a.perform {
    try b.performAndWait {
      outer.value.pages += 1
      let mine = try b.existingObject(with: bookID, as: Book.self)
      mine.note = "read in B"
      try b.save()
      return mine.pages
    }
  }
  guard pages == 412 else { throw PolicyFailure("B read \(pages) pages") }

  // performAndWait from a plain thread; reset, refetch, refresh, rollback inside perform.
  let contexts = Smuggled((a, b))
  try await withCheckedThrowingContinuation {
    (continuation: CheckedContinuation<Void, any Error>) in
    DispatchQueue(label: "TrapPolicy.legal-queue").async {
      continuation.resume(
        with: Result {
          let (a, _) = contexts.value
          try a.performAndWait {
            a.reset()
            let book = try a.existingObject(with: bookID, as: Book.self)
            a.refresh(book, mergeChanges: false)
            book.pages = 1
            a.rollback()
            guard !a.hasChanges, book.note == "read in B" else {
              throw PolicyFailure("reset/refresh/rollback went wrong")
            }
          }
        })
    }
  }

  // The viewContext: on the main actor directly, and through perform from a detached task.
  try await useViewContextOnMainActor(container)
  let viewCount = try await Task.detached {
    let view = container.viewContext
    return try await view.perform { try view.count(for: FetchRequest<Book>()) }
  }.value
  guard viewCount == 2 else { throw PolicyFailure("the viewContext counts \(viewCount) books") }

  // Thread-safe members, anywhere.
  _ = book.objectID
  _ = book.managedObjectContext
  _ = a.name
  a.mergePolicy = .mergeByPropertyObjectTrump
  _ = container.violations

  let inBackground = try await container.performBackgroundTask { context in
    try context.count(for: FetchRequest<Book>())
  }
  guard inBackground == 2 else { throw PolicyFailure("counted \(inBackground) in background") }
  return container
}

@MainActor
private func useViewContextOnMainActor(_ container: PersistentContainer) throws {
  let view = container.viewContext
  let book = Book(context: view)
  book.title = "Emma"
  try view.save()
  guard book.title == "Emma", !view.hasChanges else { throw PolicyFailure("viewContext") }
}

/// The same illegal accesses for every policy; `expected` lists what `.record` must record.
private enum IllegalWorkload {
  static let expected = [
    "outsidePerform read of Book.title in 'A'",
    "outsidePerform write of Book.pages in 'A'",
    "outsidePerform insert of Book in 'A'",
    "outsidePerform write of Book.title in 'A'",
    "outsidePerform save in 'A'",
    "outsidePerform read of Book.pages in 'A'",
    "outsidePerform write of Book.note in 'A'",
    "outsidePerform insert of Author in 'viewContext'",
    "foreignContext write of Book.author in 'B'",
    "invalidatedObject read of Book.title in 'A'",
  ]
}

private struct IllegalOutcome: Sendable {
  let policy: ConcurrencyCheckingPolicy
  let violations: [ConcurrencyViolation]
  let problems: [String]
}

/// Breaks every rule once per line of `IllegalWorkload.expected`, in that order, and checks
/// that the data came through as written (or, for the cross-context write, was refused).
private func illegalWorkload(_ policy: ConcurrencyCheckingPolicy) async throws -> IllegalOutcome {
  let (container, a, b) = containerWithContextsAB("illegal \(policy)", checking: policy)
  let book = try await a.perform {
    let book = Book(context: a)
    book.title = "Dune"
    try a.save()
    return book
  }
  var problems: [String] = []

  if book.title != "Dune" { problems.append("read '\(book.title)' outside perform") }
  book.pages = 1
  let second = Book(context: a)
  second.title = "Emma"
  try a.save()
  let task = Smuggled(book)
  let pages = await Task.detached { task.value.pages }.value
  if pages != 1 { problems.append("read \(pages) pages from a detached task") }
  await withCheckedContinuation { continuation in
    DispatchQueue.global().async {
      task.value.note = "from a queue"
      continuation.resume()
    }
  }
  await Task.detached {
    _ = container.viewContext.insertNewObject(of: Author.self)
  }.value

  let authorID = try await b.perform {
    let author = Author(context: b)
    author.name = "Frank Herbert"
    try b.save()
    return author.objectID
  }
  let foreign = try await b.perform {
    Smuggled(try b.existingObject(with: authorID, as: Author.self))
  }
  let related = await a.perform {
    task.value.author = foreign.value
    return task.value.author != nil
  }
  if related { problems.append("a cross-context relationship was set") }

  let (titles, note) = try await b.perform {
    let titles = try b.fetch(FetchRequest<Book>(sortDescriptors: [SortDescriptor(\Book.title)]))
      .map { "\($0.title) \($0.pages)" }
    return (titles, try b.existingObject(with: task.value.objectID, as: Book.self).note)
  }
  if titles != ["Dune 1", "Emma 0"] { problems.append("the store holds \(titles)") }
  if note != nil { problems.append("an unsaved note reached the store: \(note ?? "")") }

  let afterReset = await a.perform {
    a.reset()
    return task.value.title
  }
  if afterReset != "Dune" { problems.append("read '\(afterReset)' after reset") }
  return IllegalOutcome(
    policy: container.concurrencyCheckingPolicy, violations: container.violations,
    problems: problems)
}

// MARK: - Helpers

/// Carries an object to a thread that breaks its confinement on purpose.

private struct PolicyFailure: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}

private func describe(_ violations: [ConcurrencyViolation]) -> String {
  violations.isEmpty ? "  (none)" : violations.map { "  - \($0)" }.joined(separator: "\n")
}
