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
//
// The table is in this folder: AccessPattern (a row, and the whole table), one file a section of
// rows (LegalPatterns, LegalThreadPatterns, OutsidePerformPatterns, PlacePatterns,
// CrossContextPatterns, InvalidatedPatterns), and MatrixFixtures, what the rows share.

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
    expected.verify(observed[0])
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
      .existingObject, .objectWithID, .registeredObject, .obtainPermanentIDs, .mergeChanges,
      .inspectChanges, .processPendingChanges, .refreshAllObjects, .execute,
    ]
    let missing = operations.subtracting(illegal.map(\.operation)).map(\.rawValue).sorted()
    #expect(missing.isEmpty, "operations no illegal pattern exercises: \(missing)")
  }

  private static func describe(_ violations: [ConcurrencyViolation]) -> String {
    violations.isEmpty ? "  (none)" : violations.map { "  - \($0)" }.joined(separator: "\n")
  }
}
