import Dispatch
import ManagedObjectCore
import Synchronization
import WorkshopSupport

extension StressTests {
  /// Two Dispatch threads meet once, then run their rounds side by side: one, inside A, relates
  /// A's book to B's author while the other, inside B, deletes A's book with B. Each holds its own
  /// context's lock while the checker names the other context: the core must report both and go
  /// on. A core that took the other context's lock there hangs here: with that lock injected, in
  /// 40 runs of 40, idle and beside a build.
  ///
  /// Measured on 2 cores beside a build, in the full verify run (alone, the round takes 0.1 s):
  /// - Meeting at a barrier every round made 5,000 hand-offs, each a sleep and a wake-up that
  ///   waited for a time slice on a busy machine: the rounds took up to 3.5 s. Lock-step did not
  ///   even help: the last to arrive ran ahead while the other woke, and the injected deadlock
  ///   was missed in 7 runs of 24. Running free, the two loops overlap throughout.
  /// - About a dozen hops back to the cooperative pool (setup, workers, checks) each waited for
  ///   one of its two threads, which other suites hold for up to a second (blocked at a barrier,
  ///   or computing; libdispatch adds a thread once a second). On a queue of its own, the round
  ///   needs the pool only to start and to return: 1.2 to 3.2 s instead of 2.2 to 6.4 s.
  enum CrossContext {
    static let rounds = 5000

    static func run() async throws -> RoundOutcome {
      try await offThePool(on: DispatchQueue(label: "StressTests.cross-context.A")) {
        try bothDirections()
      }
    }

    /// The whole round, blocking: side A on the calling thread, side B on a queue of its own.
    private static func bothDirections() throws -> RoundOutcome {
      let (container, a, b) = containerWithContextsAB("cross-context", checking: .record)
      let book = try a.performAndWait {
        let book = Book(context: a)
        book.title = "Dune"
        try a.save()
        return Smuggled(book)
      }
      let author = try b.performAndWait {
        let author = Author(context: b)
        author.name = "Frank Herbert"
        try b.save()
        return Smuggled(author)
      }

      let start = Barrier(parties: 2)
      let sideB = Mutex<String?>(nil)
      let finishedB = Gate()
      DispatchQueue(label: "StressTests.cross-context.B").async {
        let met = start.arriveAndWait()
        for _ in 0..<rounds { b.performAndWait { b.delete(book.value) } }
        sideB.withLock { $0 = met ? nil : "B waited for A at the start in vain" }
        finishedB.open()
      }
      var problems: [String] = []
      if !start.arriveAndWait() { problems.append("A waited for B at the start in vain") }
      for _ in 0..<rounds { a.performAndWait { book.value.author = author.value } }
      if finishedB.wait() {
        problems += sideB.withLock { $0 }.map { [$0] } ?? []
      } else {
        problems.append("B's rounds did not finish")
      }

      let violations = container.violations
      let (deleted, related) = a.performAndWait { (book.value.isDeleted, book.value.author != nil) }
      if deleted { problems.append("B's delete marked A's book as deleted") }
      if related { problems.append("A's book was related to B's author") }
      return RoundOutcome(violations: violations, problems: problems)
    }
  }
}
