import Foundation
import ManagedObjectCore
import Testing

/// Records a failure unless no confinement violation was recorded, listing what was observed
/// (identical violations folded, with their count), then the lesson.
public func expectNoViolations(
  _ violations: [ConcurrencyViolation], while activity: String, lesson: Lesson,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  guard !violations.isEmpty else { return }
  recordExamIssue(
    "While \(activity), \(violations.count) violation(s) were recorded:\n"
      + describe(violations) + "\n" + lesson.text,
    sourceLocation: sourceLocation)
}

/// Records a failure with `observed` and the lesson unless `condition` holds.
public func expect(
  _ condition: Bool, observed: @autoclosure () -> String, lesson: Lesson,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  guard !condition else { return }
  recordExamIssue("Observed: \(observed())\n" + lesson.text, sourceLocation: sourceLocation)
}

/// The same, and stops the check: for conditions the rest of the check depends on.
public struct ExamRequirementFailed: Error, CustomStringConvertible {
  public let description: String
}

public func require(
  _ condition: Bool, observed: @autoclosure () -> String, lesson: Lesson,
  sourceLocation: SourceLocation = #_sourceLocation
) throws {
  guard !condition else { return }
  throw ExamRequirementFailed(description: "Observed: \(observed())\n" + lesson.text)
}

/// Records an issue and counts it for the exam's scoreboard line; an open stretch task's only
/// counts it, since its scoreboard line says all an attendee needs before they start.
func recordExamIssue(_ message: String, sourceLocation: SourceLocation) {
  let score = ExamScore.current
  score?.recordFailure()
  if score?.isOpenStretchTask == true { return }
  ExamIssues.onRecord?(message)
  let check = score.map { "Check: \($0.check)\n" } ?? ""
  Issue.record(Comment(rawValue: check + message), sourceLocation: sourceLocation)
}

/// What the exam's helpers record, for HarnessTests to see: an issue recorded inside the exam's
/// own `withKnownIssue` cannot be seen from outside it.
package enum ExamIssues {
  @TaskLocal package static var onRecord: (@Sendable (String) -> Void)?
}

/// One violation per line (without the rule, which the lesson states), identical ones folded
/// into one line with a count.
public func describe(_ violations: [ConcurrencyViolation], limit: Int = 12) -> String {
  var order: [String] = []
  var counts: [String: Int] = [:]
  for violation in violations {
    let line = violation.summary
    if counts[line] == nil { order.append(line) }
    counts[line, default: 0] += 1
  }
  var lines = order.prefix(limit).map { line in
    let count = counts[line]!
    return count > 1 ? "  ×\(count) \(line)" : "  - \(line)"
  }
  if order.count > limit {
    lines.append("  … and \(order.count - limit) other kinds of violation")
  }
  return lines.joined(separator: "\n")
}
