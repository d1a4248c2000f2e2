import ManagedObjectCore
import Testing
import WorkshopSupport

// The checker under load: many tasks and Dispatch threads, legal and illegal work mixed, with an
// end state that does not depend on the interleaving. Illegal accesses each record exactly one
// violation, so their number is exact; each touches its own object, so the values are exact too.
//
// Rules kept here: no sleeps; every wait bounded (`withTimeout`, `Gate.wait`); blocking waits only
// on Dispatch queues of their own, never on the cooperative pool (two threads on this machine)
// nor on `DispatchQueue.global()`, which on Linux is that same pool.
//
// One scenario a file in this folder (MixedTraffic, LegalTraffic, CrossContext, Hammering), each
// with its plan and its round; StressSupport holds what they share.

@Suite("Checker under concurrent load")
struct StressTests {
  @Test("Mixed legal and illegal traffic over several contexts ends in an exact state")
  func mixedTraffic() async throws {
    try #require(
      Mixed.workers * Mixed.accessesPerWorker <= Mixed.contexts * Mixed.objectsPerContext,
      "each illegal access must have an object of its own")
    for round in 0..<Mixed.rounds {
      let outcome = try await withTimeout(.seconds(20), "mixed traffic, round \(round)") {
        try await Mixed.run(round)
      }
      #expect(outcome.problems.isEmpty, "round \(round) observed:\n\(outcome.problemList)")
      let observed = Self.histogram(outcome.violations)
      #expect(
        outcome.violations.count == Mixed.illegalAccesses,
        "round \(round): \(Mixed.illegalAccesses) illegal accesses must record exactly as many violations; observed \(outcome.violations.count):\n\(Self.describe(outcome.violations))"
      )
      #expect(
        observed == Mixed.expectedHistogram,
        "round \(round): the violations do not match the illegal accesses made:\n\(Self.describe(outcome.violations))"
      )
    }
  }

  @Test(
    "Legal traffic from tasks and Dispatch threads, nested performAndWait included, records nothing"
  )
  func legalTraffic() async throws {
    let outcome = try await withTimeout(.seconds(20), "legal traffic") { try await Legal.run() }
    #expect(outcome.problems.isEmpty, "observed:\n\(outcome.problemList)")
    #expect(
      outcome.violations.isEmpty,
      "legal traffic recorded \(outcome.violations.count) violation(s):\n\(Self.describe(outcome.violations))"
    )
  }

  @Test("Cross-context uses in both directions at once are reported, never deadlock")
  func crossContextBothWays() async throws {
    let outcome = try await withTimeout(.seconds(10), "cross-context uses in both directions") {
      try await CrossContext.run()
    }
    #expect(outcome.problems.isEmpty, "observed:\n\(outcome.problemList)")
    let expected: [String: Int] = [
      "foreignContext write of Book.author in 'B'": CrossContext.rounds,
      "foreignContext delete of Book in 'A'": CrossContext.rounds,
    ]
    #expect(
      Self.histogram(outcome.violations, includingLocation: false) == expected,
      "observed \(outcome.violations.count) violation(s):\n\(Self.describe(outcome.violations))")
  }

  @Test("Hammering one object from everywhere: exact count, no torn value, no lost save")
  func hammering() async throws {
    let outcome = try await withTimeout(.seconds(20), "hammering one object") {
      try await Hammer.run()
    }
    #expect(outcome.problems.isEmpty, "observed:\n\(outcome.problemList)")
    #expect(
      Self.histogram(outcome.violations) == Hammer.expectedHistogram,
      "observed \(outcome.violations.count) violation(s):\n\(Self.describe(outcome.violations))")
  }
}
