import Testing
import WorkshopSupport
import workshop

/// `swift test --filter StepN` must end with the step's true state under both build systems.
/// Under Swift Build (SwiftPM's default from Swift 6.4, Xcode 27), every test target runs in a
/// process of its own, in a fixed order, and those after the step's print
/// `✔ Test run with 0 tests … passed` after its summary. The fixtures are real runs (see
/// ``Fixture``).
@Suite("Runner: the last lines of an attendee's run")
struct ClosingLinesTests {
  /// Swift Build runs of the untouched starters and of Step 1 solved, and native runs.
  static let runs: [(fixture: String, step: String, count: String)] = [
    ("swiftbuild-step1", "Step1", "  Your side: 17 of 34 pass (8 of the others"),
    ("swiftbuild-step5", "Step5", "  Your side: 8 of 22 pass (1 of the others"),
    ("swiftbuild-step1-solved", "Step1", "  Your side: 34 of 34 pass."),
    ("step4-yours", "Step4", "  Your side: 1 of 8 pass (1 of the others"),
  ]

  @Test("The last lines say the step's true state, whatever the build system")
  func endsWithTheTruth() throws {
    for run in Self.runs {
      let closing = ClosingLines(output: try Fixture.text(run.fixture), step: run.step)
      #expect(closing.problems.isEmpty, "\(run.fixture)")
      #expect(closing.count?.hasPrefix(run.count) == true, "\(run.fixture): \(closing.count ?? "")")
    }
  }

  /// The output of the same run as the exam printed it before it named the other targets' runs:
  /// the fixture without that line.
  @Test("Other targets' runs after the count, with nothing to say whose, break the rule")
  func unexplainedRuns() throws {
    let note = ExamSummary.otherTargetsNote(step: "Step1")
    let output = try Fixture.text("swiftbuild-step1").replacing(note + "\n", with: "")
    let closing = ClosingLines(output: output, step: "Step1")
    #expect(closing.problems.count == 4)
    #expect(
      closing.problems.allSatisfy {
        $0.hasPrefix("another test target's run follows, and nothing says whose: ✔ Test run with 0")
      })
  }

  /// The summary on standard output, which `swift test` forwards apart from Swift Testing's
  /// standard error: seen before the run's closing line in 1 run of 20.
  @Test("A summary printed before the step's run ends breaks the rule")
  func summaryBeforeTheEnd() throws {
    let lines = try Fixture.text("swiftbuild-step1").split(
      separator: "\n", omittingEmptySubsequences: false)
    let end = try #require(lines.firstIndex { $0.hasPrefix("✘ Test run with ") })
    var moved = lines
    moved.remove(at: end)
    let count = try #require(moved.lastIndex { $0.hasPrefix("  Your side: ") })
    moved.insert(lines[end], at: count + 1)
    let closing = ClosingLines(output: moved.joined(separator: "\n"), step: "Step1")
    #expect(closing.problems == ["after the count: \(lines[end])"])
  }

  @Test("A count that does not match the scoreboard lines breaks the rule")
  func wrongCount() throws {
    let output = try Fixture.text("swiftbuild-step1").replacing(
      "Your side: 17 of 34 pass", with: "Your side: 34 of 34 pass")
    let problems = ClosingLines(output: output, step: "Step1").problems
    #expect(problems.count == 1)
    #expect(problems.first?.hasSuffix("the [Step1] lines on your side: 17 of 34 pass") == true)
  }

  /// The summary this code prints, put where a real Swift Build run printed its summary: in a
  /// process that holds one test target, it passes; printed as for the whole package, it
  /// leaves the other targets' runs unexplained.
  @Test("The exam's summary, printed in one target's process, passes the rule")
  func examSummaryInARealRun() throws {
    let text = try Fixture.text("swiftbuild-step1")
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let heading = try #require(lines.firstIndex(of: "Step1 — every result, in order:"))
    let count = try #require(lines.lastIndex { $0.hasPrefix("  Your side: ") })
    let summary = ExamSummary()
    for line in lines[..<heading] {
      guard let result = CheckResult(line: line) else { continue }
      summary.record(
        step: result.step, check: result.name, label: result.label, line: line,
        passed: result.passed)
    }
    func spliced(_ scope: TestProcessScope) -> String {
      // The summary's text starts with an empty line, which the fixture has before the heading.
      let before = lines[..<(heading - 1)].joined(separator: "\n") + "\n"
      let after = lines[(count + 1)...].joined(separator: "\n")
      return before + summary.text(for: scope) + after
    }
    #expect(ClosingLines(output: spliced(.oneTarget("Step1Tests")), step: "Step1").problems == [])
    #expect(ClosingLines(output: spliced(.unknown), step: "Step1").problems == [])
    #expect(ClosingLines(output: spliced(.wholePackage), step: "Step1").problems.count == 4)
  }

  @Test("SwiftPM's closing list of failed targets may follow, naming the step's target")
  func swiftPMFailureNote() throws {
    let text = try Fixture.text("swiftbuild-step1")
    // As Swift 6.4's SwiftPM ends a run with a failure (swift-package-manager, release/6.4.x,
    // `SwiftTestCommand.failedTestsNote`).
    let note = "Note: Some test targets reported failures:\n  - Step1Tests (Swift Testing)\n"
    #expect(ClosingLines(output: text + note, step: "Step1").problems == [])
    let other = "Note: Some test targets reported failures:\n  - CoreTests (Swift Testing)\n"
    #expect(ClosingLines(output: text + other, step: "Step1").problems.count == 1)
  }
}
