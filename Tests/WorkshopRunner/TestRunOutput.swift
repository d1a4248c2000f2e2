import Foundation

/// What one `swift test` run printed, read: the scoreboard lines, the issues, and whether the
/// run got to its end.
package struct TestRunOutput: Equatable, Sendable {
  /// Every scoreboard line, in the order printed.
  package let results: [CheckResult]
  package let issues: [ReportedIssue]
  /// Whether every test run printed its last line, `✔ Test run with N tests …`. A run that
  /// crashed, or that the watchdog ended, did not. Under Swift Build, `swift test` starts one
  /// test process per test target, one after another, and the others print their own last line
  /// (`✔ Test run with 0 tests …`) after a step's crashed run: one is not enough.
  package let finished: Bool
  /// What stopped an unfinished run, in the output's words: a fatal error, a crash, the
  /// watchdog's message, the signal.
  package let stopReasons: [String]
  /// The checks that started and printed no result, each once: what was running when the run
  /// stopped.
  package let unfinishedTests: [String]
  /// The last lines printed, to show when a run stopped for a reason it did not name.
  package let tail: [String]

  package init(output: String) {
    let lines = Self.lines(of: output)
    results = lines.compactMap(CheckResult.init(line:))
    issues = ReportedIssue.all(in: lines)
    let runs = Self.runs(in: lines)
    finished = !runs.isEmpty && runs.allSatisfy(\.ended)
    // A run that printed its last line was not stopped: a fatal error it shows is an exit
    // test's, quoted in an issue.
    var reasons: [String] = []
    for (index, line) in lines.enumerated() where !finished {
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
    unfinishedTests = Self.unfinished(in: lines)
    // The run that stopped, not the test processes SwiftPM started after it.
    let stopped = runs.first { !$0.ended }?.lines ?? lines.indices
    tail = Array(
      lines[stopped].filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.suffix(8))
  }

  /// The test runs in the output, each from its first line (`◇ Test run started.`) to its last
  /// (`✔ Test run with N tests …`, `✘` when it failed, `━` when it passed with known issues), or
  /// to where the next began, or to the end, if it did not end. Output trimmed of the first
  /// lines reads as runs that each began after the one before ended.
  package static func runs(in lines: [String]) -> [(lines: Range<Int>, ended: Bool)] {
    var runs: [(lines: Range<Int>, ended: Bool)] = []
    var start: Int?
    var next = 0
    for (index, line) in lines.enumerated() {
      guard let message = SymbolLine(line) else { continue }
      if message.symbol == .default, message.text == "Test run started." {
        if let start { runs.append((start..<index, false)) }
        start = index
      } else if message.text.hasPrefix("Test run with ") {
        runs.append(((start ?? next)..<(index + 1), true))
        start = nil
        next = index + 1
      }
    }
    if let start { runs.append((start..<lines.count, false)) }
    return runs
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

  /// The tests with a case that started and printed no scoreboard line, or, for a test without
  /// cases, that started and did not end.
  private static func unfinished(in lines: [String]) -> [String] {
    var cases: [(test: String, side: String)] = []
    var tests: [String] = []
    var withCases: Set<String> = []
    for line in lines {
      let message = SymbolLine(line)
      if let started = startedCase(message) {
        cases.append(started)
        withCases.insert(started.test)
      } else if let message, message.symbol == .default, message.text.hasPrefix("Test \""),
        message.text.hasSuffix("\" started.")
      {
        tests.append(String(message.text.dropFirst(6).dropLast(10)))
      } else if let result = CheckResult(line: line),
        let index = cases.firstIndex(where: { $0 == (result.name, result.side) })
      {
        cases.remove(at: index)
      } else if let name = endedTest(message) {
        cases.removeAll { $0.test == name }
        tests.removeAll { $0 == name }
      }
    }
    var names: [String] = []
    for name in cases.map(\.test) + tests.filter({ !withCases.contains($0) })
    where !names.contains(name) {
      names.append(name)
    }
    return names
  }

  /// A test case that started, from its line: `◇ Test case passing 1 argument subject → yours · class to "…"
  /// started.`, its test and its side.
  private static func startedCase(_ message: SymbolLine?) -> (test: String, side: String)? {
    guard let message, message.symbol == .default else { return nil }
    let line = message.text
    guard line.hasPrefix("Test case passing "), line.hasSuffix("\" started."),
      let to = line.range(of: " to \"", options: .backwards),
      let arrow = line.range(of: " → ", range: line.startIndex..<to.lowerBound)
    else { return nil }
    let argument = line[arrow.upperBound..<to.lowerBound]
    let side = argument.split(separator: " ").first.map { $0.drop { $0 == "." } } ?? ""
    return (String(line[to.upperBound..<line.index(line.endIndex, offsetBy: -10)]), String(side))
  }

  /// The test whose end the line reports: `✔ Test "…" passed after …`, `✘ Test "…" with 4 test
  /// cases failed after …`.
  private static func endedTest(_ message: SymbolLine?) -> String? {
    guard let message, [.pass, .fail, .passWithKnownIssues].contains(message.symbol) else {
      return nil
    }
    let line = message.text
    guard line.hasPrefix("Test \""), !line.contains("\" recorded "), line.contains(" after ")
    else { return nil }
    let body = line.dropFirst(6)
    let ends = ["\" passed after", "\" failed after", "\" with "].compactMap {
      body.range(of: $0)?.lowerBound
    }
    return ends.min().map { String(body[..<$0]) }
  }
}
