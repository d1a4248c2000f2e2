import Foundation

/// What one `swift test` run printed, read: the scoreboard lines, the issues, and whether the
/// run got to its end.
package struct TestRunOutput: Equatable, Sendable {
  /// Every scoreboard line, in the order printed.
  package let results: [CheckResult]
  package let issues: [ReportedIssue]
  /// Whether Swift Testing printed its last line, `✔ Test run with N tests …`. A run that
  /// crashed, or that the watchdog ended, did not.
  package let finished: Bool
  /// What stopped an unfinished run, in the output's words: a fatal error, a crash, the
  /// watchdog's message, the signal.
  package let stopReasons: [String]
  /// The tests that started and did not end: what was running when the run stopped.
  package let unfinishedTests: [String]
  /// The last lines printed, to show when a run stopped for a reason it did not name.
  package let tail: [String]

  package init(output: String) {
    let lines = Self.lines(of: output)
    results = lines.compactMap(CheckResult.init(line:))
    issues = ReportedIssue.all(in: lines)
    // `✔`, `✘`, or `━` when the run passed with known issues.
    finished = lines.contains { $0.dropFirst(2).hasPrefix("Test run with ") }
    var reasons: [String] = []
    for (index, line) in lines.enumerated() {
      if let range = line.range(of: "WATCHDOG: ") {
        reasons.append(String(line[range.lowerBound...]))
        if index + 1 < lines.count, lines[index + 1].hasPrefix("Likely cause: ") {
          reasons.append(lines[index + 1])
        }
      } else if line.contains("Fatal error: ") || line.hasPrefix("*** Program crashed: ") {
        reasons.append(line.trimmingCharacters(in: .whitespaces))
      } else if let range = line.range(of: "exited with unexpected signal code ") {
        reasons.append("The test process ended with signal \(line[range.upperBound...]).")
      }
    }
    stopReasons = reasons
    var running: [String] = []
    for line in lines {
      if line.hasPrefix("◇ Test \""), line.hasSuffix("\" started.") {
        running.append(String(line.dropFirst(8).dropLast(10)))
      } else if let name = Self.endedTest(line) {
        running.removeAll { $0 == name }
      }
    }
    unfinishedTests = running
    tail = Array(lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.suffix(8))
  }

  /// The results of `step`'s checks.
  package func results(of step: Step) -> [CheckResult] {
    results.filter { $0.step == step.name }
  }

  /// The output's lines, without terminal colours and carriage returns.
  package static func lines(of output: String) -> [String] {
    output.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      var text = String(line)
      while let escape = text.range(of: "\u{1B}[") {
        let end =
          text[escape.upperBound...].firstIndex { $0.isLetter }.map { text.index(after: $0) }
          ?? text.endIndex
        text.removeSubrange(escape.lowerBound..<end)
      }
      return text.hasSuffix("\r") ? String(text.dropLast()) : text
    }
  }

  /// The test whose end `line` reports: `✔ Test "…" passed after …`, `✘ Test "…" with 4 test
  /// cases failed after …`.
  private static func endedTest(_ line: String) -> String? {
    guard ["✔ Test \"", "✘ Test \"", "━ Test \""].contains(where: { line.hasPrefix($0) }),
      !line.contains("\" recorded "), line.contains(" after ")
    else { return nil }
    let body = line.dropFirst(8)
    let ends = ["\" passed after", "\" failed after", "\" with "].compactMap {
      body.range(of: $0)?.lowerBound
    }
    return ends.min().map { String(body[..<$0]) }
  }
}
