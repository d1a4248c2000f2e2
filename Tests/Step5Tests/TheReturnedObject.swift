import ManagedObjectCore
import Testing
import WorkshopSupport

/// Not an exam: the 2024 talk's code, run (2024 talk, slides 25–27; slides/05-read-write-scheduler.md). The slide
/// shows a compile error (2024 talk, slide 27); Swift 6 compiles the code (the probe
/// `ObjectReturnsToTheMainActor`), and what is wrong happens at run time: the main actor reads
/// an object that belongs to a background context. Only the confinement checker sees it.
@Suite("Step 5 — a model object returned to the main actor")
struct TheReturnedObject {
  /// The talk's `fetchFirstResult()` (2024 talk, slides 25–27): a context of its own, the first
  /// object, returned.
  static func fetchFirstResult(from container: PersistentContainer) async throws -> Score? {
    let context = container.newBackgroundContext()
    context.name = "fetchFirstResult"
    return try await context.perform {
      try context.fetch(FetchRequest<Score>()).first
    }
  }

  @MainActor
  @Test("A managed object returned to the main actor compiles, and reading it there is a violation")
  func readOnTheMainActor() async throws {
    let container = PersistentContainer(name: "returned-object")
    try await container.performBackgroundTask { context in
      Score(context: context).value = 70
      try context.save()
    }
    // The talk's `updateLabel()` (2024 talk, slides 25–27): the compiler accepts it; the read below
    // is the wrong one.
    let firstResult = try #require(try await Self.fetchFirstResult(from: container))
    let label = "Score: \(firstResult.value)"
    let reads = container.removeAllViolations().filter {
      $0.kind == .outsidePerform && $0.operation == .read && $0.property == "value"
    }
    #expect(label == "Score: 70")
    #expect(
      reads.count == 1 && reads.first?.contextName == "fetchFirstResult",
      "the main actor's read of a background context's object must be one violation: \(reads)")
  }
}
