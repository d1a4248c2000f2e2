import WorkshopSupport
import workshop

/// What the last lines of `swift test --filter StepN` say about the step, read as an attendee
/// reads them: from the end up, to the first line that says how a run went.
///
/// The rule: the step's count (`  Your side: P of T pass…`, the exam summary's last line) is
/// true (P and T are the `[StepN]` lines on your side that pass, and all of them), and every line
/// after it is one of
/// - a test run of another test target that ran no test (`◇ Test run started.`, its `↳` lines,
///   `✔ Test run with 0 tests …`), allowed only when the summary said, just above the count,
///   whose runs those are (``ExamSummary/otherTargetsNote(step:)``): under Swift Build each
///   test target runs in its own process after the step's, and says "passed";
/// - SwiftPM's closing list of the test targets that failed (`Note: Some test targets reported
///   failures:`, from Swift 6.4), naming the step's target;
/// - an empty line.
/// `.ci/lib/closing-lines` holds the same rule over a live run.
struct ClosingLines {
  /// The step's count on your side, as the summary printed it; nil when there is none.
  let count: String?
  /// Why the last lines do not say the step's true state; empty when they do.
  let problems: [String]

  init(output: String, step: String) {
    let lines = TestRunOutput.lines(of: output)
    guard let index = lines.lastIndex(where: { $0.hasPrefix("  Your side: ") }) else {
      count = nil
      problems = ["no line gives \(step)'s count on your side (\"  Your side: …\")"]
      return
    }
    count = lines[index]
    var problems: [String] = []
    let yours = lines.compactMap(CheckResult.init(line:)).filter {
      $0.step == step && $0.side == "yours"
    }
    let passed = yours.filter(\.passed).count
    if !lines[index].hasPrefix("  Your side: \(passed) of \(yours.count) pass") {
      problems.append(
        "the count says \"\(lines[index].dropFirst(2))\", the [\(step)] lines on your side: "
          + "\(passed) of \(yours.count) pass")
    }
    let announced = index > 0 && lines[index - 1] == ExamSummary.otherTargetsNote(step: step)
    // What the line before was part of: an empty test run, or SwiftPM's list of failures.
    var within: (run: Bool, note: Bool) = (false, false)
    for line in lines[(index + 1)...] where !line.trimmingCharacters(in: .whitespaces).isEmpty {
      let message = SymbolLine(line)
      if line == "Note: Some test targets reported failures:" {
        within = (false, true)
      } else if within.note, line.hasPrefix("  - ") {
        let target = line.dropFirst(4).prefix { $0 != " " }
        if target != "\(step)Tests" && !target.hasSuffix("PackageTests") {
          problems.append("SwiftPM names a failing target that is not \(step)'s: \(line)")
        }
      } else if message?.symbol == .default, message?.text == "Test run started." {
        within = (true, false)
      } else if within.run, message?.symbol == .details {
        continue
      } else if within.run, message?.symbol == .pass,
        message?.text.hasPrefix("Test run with 0 tests ") == true
      {
        within = (false, false)
        if !announced {
          problems.append("another test target's run follows, and nothing says whose: \(line)")
        }
      } else {
        within = (false, false)
        problems.append("after the count: \(line)")
      }
    }
    self.problems = problems
  }
}
