import Foundation
import Synchronization

/// The end-of-run summary of plain `swift test --filter StepN`: every check's result, once the
/// run is over, in one order (by step, then check, yours before the solution), because the
/// scoreboard lines come in the order the checks finish.
///
/// The lines are indented, unlike scoreboard lines (`[Step1] ✔ …`), so that the runner and
/// `.ci/flakiness`, which read scoreboard lines, do not count them twice.
package final class ExamSummary: Sendable {
  package struct Entry: Sendable, Equatable {
    let step: String
    let check: String
    let label: String
    let line: String
    let passed: Bool
  }

  /// The run's summary, printed when the test process exits if any check ran in it.
  static let shared: ExamSummary = {
    let summary = ExamSummary()
    atexit { ExamSummary.shared.printIfAny() }
    return summary
  }()

  private let entries = Mutex<[Entry]>([])

  package init() {}

  /// Records one side of a check, with its scoreboard line (`[Step1] ✔ yours — name`).
  package func record(step: String, check: String, label: String, line: String, passed: Bool) {
    entries.withLock {
      $0.append(Entry(step: step, check: check, label: label, line: line, passed: passed))
    }
  }

  /// The summary's text: per step, a heading, each result without its `[StepN]`, and the count
  /// on your side. Empty when no check ran.
  package var text: String {
    let entries = entries.withLock { $0 }
    guard !entries.isEmpty else { return "" }
    var text = ""
    for step in Set(entries.map(\.step)).sorted(by: Self.stepOrder) {
      let results = entries.filter { $0.step == step }.sorted {
        ($0.check, Self.sideOrder($0.label), $0.label) < (
          $1.check, Self.sideOrder($1.label), $1.label
        )
      }
      text += "\n\(step) — every result, in order:\n"
      for result in results {
        text += "  " + result.line.dropFirst(step.count + 3) + "\n"
      }
      let yours = results.filter { $0.label.hasPrefix("yours") }
      if !yours.isEmpty {
        let open = yours.filter { !$0.passed && $0.line.hasSuffix("(\(stretchNote))") }.count
        let passed = yours.filter(\.passed).count
        text += "  Your side: \(passed) of \(yours.count) pass"
        if passed == yours.count {
          text += ".\n"
          continue
        }
        text += open > 0 ? " (\(open) of the others: a stretch task, optional). " : ". "
        text += "The failures' messages are above; `swift run workshop check "
        text += "\(step.dropFirst(4))` lists them in this order.\n"
      }
    }
    return text
  }

  private func printIfAny() {
    let text = text
    if !text.isEmpty { print(text, terminator: "") }
  }

  private static func sideOrder(_ label: String) -> Int { label.hasPrefix("yours") ? 0 : 1 }

  private static func stepOrder(_ a: String, _ b: String) -> Bool {
    (Int(a.dropFirst(4)) ?? 0, a) < (Int(b.dropFirst(4)) ?? 0, b)
  }
}
