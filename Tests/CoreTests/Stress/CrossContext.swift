import Dispatch
import ManagedObjectCore
import WorkshopSupport

extension StressTests {
  /// Two Dispatch threads meet at a barrier each round; then one, inside A, relates A's book to
  /// B's author while the other, inside B, deletes A's book with B. Each holds its own context's
  /// lock while the checker names the other context: the core must report both and go on. (A core
  /// that took the other context's lock there deadlocked within 5000 rounds in every run tried.)
  enum CrossContext {
    static let rounds = 5000

    static func run() async throws -> RoundOutcome {
      let (container, a, b) = containerWithContextsAB("cross-context", checking: .record)
      let book = try await a.perform {
        let book = Book(context: a)
        book.title = "Dune"
        try a.save()
        return Smuggled(book)
      }
      let author = try await b.perform {
        let author = Author(context: b)
        author.name = "Frank Herbert"
        try b.save()
        return Smuggled(author)
      }
      let barriers = (0..<rounds).map { _ in Barrier(parties: 2) }

      let missed = await withTaskGroup(of: Int.self) { group in
        group.addTask {
          await withCheckedContinuation { continuation in
            DispatchQueue(label: "StressTests.cross-context.A").async {
              var missed = 0
              for barrier in barriers {
                if !barrier.arriveAndWait() { missed += 1 }
                a.performAndWait { book.value.author = author.value }
              }
              continuation.resume(returning: missed)
            }
          }
        }
        group.addTask {
          await withCheckedContinuation { continuation in
            DispatchQueue(label: "StressTests.cross-context.B").async {
              var missed = 0
              for barrier in barriers {
                if !barrier.arriveAndWait() { missed += 1 }
                b.performAndWait { b.delete(book.value) }
              }
              continuation.resume(returning: missed)
            }
          }
        }
        var missed = 0
        for await count in group { missed += count }
        return missed
      }
      var problems: [String] = []
      if missed > 0 { problems.append("\(missed) barrier waits timed out") }
      let violations = container.violations
      let (deleted, related) = await a.perform { (book.value.isDeleted, book.value.author != nil) }
      if deleted { problems.append("B's delete marked A's book as deleted") }
      if related { problems.append("A's book was related to B's author") }
      return RoundOutcome(violations: violations, problems: problems)
    }
  }
}
