import Dispatch
import ManagedObjectCore
import WorkshopSupport

// What the stress scenarios share: a round's outcome, how its violations are counted and shown,
// and the two kinds of worker, a task on the cooperative pool and a Dispatch thread of its own.

extension StressTests {
  /// What a round observed: its violations, and every way the data disagreed with the plan.
  struct RoundOutcome: Sendable {
    var violations: [ConcurrencyViolation]
    var problems: [String]

    /// The problems, one a line, for a failure message.
    var problemList: String { problems.map { "  - \($0)" }.joined(separator: "\n") }
  }

  struct RoundFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
      self.description = description
    }
  }

  static let taskPlace = "(task)"
  static let threadPlace = "(thread)"

  /// Violations counted by kind, subject, context and (optionally) where they ran.
  static func histogram(
    _ violations: [ConcurrencyViolation], includingLocation: Bool = true
  ) -> [String: Int] {
    var counts: [String: Int] = [:]
    for violation in violations {
      var key = "\(violation.kind) \(violation.subject) in '\(violation.contextName)'"
      if includingLocation {
        if violation.location.contains("in a Swift task") {
          key += " \(taskPlace)"
        } else if violation.location.contains("outside any perform block") {
          key += " \(threadPlace)"
        } else {
          key += " (elsewhere: \(violation.location))"
        }
      }
      counts[key, default: 0] += 1
    }
    return counts
  }

  /// A readable summary for failure messages: counts by kind, then the first descriptions.
  static func describe(_ violations: [ConcurrencyViolation], limit: Int = 12) -> String {
    guard !violations.isEmpty else { return "  (none)" }
    let counts = histogram(violations).sorted { $0.key < $1.key }
      .map { "  \($0.value) × \($0.key)" }
    let shown = violations.prefix(limit).map { "  - \($0)" }
    let more = violations.count > limit ? ["  … and \(violations.count - limit) more"] : []
    return (counts + ["first violations:"] + shown + more).joined(separator: "\n")
  }

  /// A new background context of `container` for each name, named so.
  static func backgroundContexts(
    named names: [String], in container: PersistentContainer
  ) -> [ManagedObjectContext] {
    names.map { name in
      let context = container.newBackgroundContext()
      context.name = name
      return context
    }
  }

  /// A counter named `name`, inserted into `context` and saved, inside its perform.
  static func savedCounter(
    named name: String, in context: ManagedObjectContext
  ) async throws -> Smuggled<Counter> {
    try await context.perform {
      let counter = Counter(context: context)
      counter.name = name
      try context.save()
      return Smuggled(counter)
    }
  }

  /// A worker on the cooperative pool: runs `step(0)` … `step(count - 1)`, yielding after each so
  /// that the other workers interleave with it, and returns what the steps saw wrong.
  static func taskWorker(_ count: Int, _ step: (Int) -> String?) async -> [String] {
    var seen: [String] = []
    for index in 0..<count {
      if let wrong = step(index) { seen.append(wrong) }
      await Task.yield()
    }
    return seen
  }

  /// A worker on a Dispatch thread: waits for `start`, runs `step(0)` … `step(count - 1)` and
  /// returns what the steps saw wrong, or that the gate stayed shut.
  ///
  /// On a serial queue of its own, which gets a thread of its own. Not on `DispatchQueue.global()`:
  /// on Linux that is the cooperative pool (two threads here), and a worker blocked there at the
  /// gate or in a `performAndWait` takes a thread from every task of the run, the other suites'
  /// included, until libdispatch's monitor, which looks once a second, adds one.
  static func threadWorker(
    _ name: String, after start: Gate, _ count: Int,
    _ step: @escaping @Sendable (Int) -> String?
  ) async -> [String] {
    await withCheckedContinuation { continuation in
      DispatchQueue(label: "StressTests.\(name)").async {
        guard start.wait() else {
          continuation.resume(returning: ["\(name): the start gate stayed shut"])
          return
        }
        continuation.resume(returning: (0..<count).compactMap(step))
      }
    }
  }
}
