import Foundation
import Synchronization

/// The end-of-run summary of plain `swift test --filter StepN`: every check's result, once the
/// run is over, in one order (by step, then check, yours before the solution), because the
/// scoreboard lines come in the order the checks finish.
///
/// The lines are indented, unlike scoreboard lines (`[Step1] ✔ …`), so that the runner and
/// `.ci/flakiness`, which read scoreboard lines, do not count them twice.
///
/// It is printed when the test process exits, the latest any code of the workshop runs in a
/// `swift test`. Under Swift Build each test target runs in a process of its own
/// (``TestProcessScope``), and the targets SwiftPM runs after the step's print their own
/// `✔ Test run with 0 tests … passed`, which no code of the workshop can follow; so the summary
/// then says whose those lines are, and ends with the count on your side.
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
    atexit { ExamSummary.shared.printIfAny(scope: .current) }
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

  /// The summary's text in a process that runs the whole package's tests: per step, a heading,
  /// each result without its `[StepN]`, and the count on your side. Empty when no check ran.
  package var text: String { text(for: .wholePackage) }

  /// The summary's text in a process of `scope`: unless it holds the whole package, the line
  /// before the last says that a test run printed after it is another test target's.
  package func text(for scope: TestProcessScope) -> String {
    let entries = entries.withLock { $0 }
    guard !entries.isEmpty else { return "" }
    let steps = Set(entries.map(\.step)).sorted(by: Self.stepOrder)
    var text = ""
    for step in steps {
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
    guard scope != .wholePackage, let last = steps.last else { return text }
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    let note = Self.otherTargetsNote(step: last)
    // Above the count on your side, so that the count stays the step's last line.
    if let count = lines.last, count.hasPrefix("  Your side: ") {
      lines.insert(Substring(note), at: lines.count - 1)
    } else {
      lines.append(Substring(note))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// Says whose the test runs printed after the summary are, when each test target runs in its
  /// own process.
  package static func otherTargetsNote(step: String) -> String {
    "  Swift Build runs each test target in its own process: a \"Test run with 0 tests\" "
      + "printed after this summary is another test target's, which has no \(step) check."
  }

  /// Writes the summary where the scoreboard lines went (``ExamOutput``), after anything still
  /// waiting in standard output.
  private func printIfAny(scope: TestProcessScope) {
    let text = text(for: scope)
    guard !text.isEmpty else { return }
    fflush(nil)
    ExamOutput.write(text)
  }

  private static func sideOrder(_ label: String) -> Int { label.hasPrefix("yours") ? 0 : 1 }

  private static func stepOrder(_ a: String, _ b: String) -> Bool {
    (Int(a.dropFirst(4)) ?? 0, a) < (Int(b.dropFirst(4)) ?? 0, b)
  }
}
