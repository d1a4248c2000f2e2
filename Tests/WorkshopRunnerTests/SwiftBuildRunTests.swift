import Testing
import WorkshopSupport
import workshop

/// Under Swift Build, `swift test --filter Step1Tests` starts one test process per test target,
/// one after another (swift-package-manager, `Sources/Commands/SwiftTestCommand.swift`,
/// `TestRunner.testPerProduct`): the step's run is one of eleven, and the ten others each print
/// `✔ Test run with 0 tests … passed`, after it or before it. Captured with Swift 6.3.1's
/// `--build-system swiftbuild` on Linux (see ``Fixture``).
@Suite("Runner: a Swift Build run, one test process per test target")
struct SwiftBuildRunTests {
  @Test("A step's run that crashed is unfinished, though the other targets' runs ended")
  func crashAmongOtherRuns() throws {
    let run = try Fixture.run("swiftbuild-crash")
    #expect(
      TestRunOutput.runs(in: TestRunOutput.lines(of: try Fixture.text("swiftbuild-crash")))
        .map(\.ended) == Array(repeating: true, count: 6) + [false]
        + Array(repeating: true, count: 4))
    #expect(!run.finished)
    #expect(
      run.stopReasons.contains {
        $0.hasSuffix("Fatal error: Unexpectedly found nil while unwrapping an Optional value")
      })
    #expect(run.stopReasons.contains("The test process ended with signal 4."))
    // What the step's run printed last, not the runs that came after it.
    #expect(!run.tail.isEmpty)
    #expect(!run.tail.contains { $0.contains("Test run with 0 tests") })
    let declared = try #require(DeclaredChecks.read(Fixture.step1, in: NotRunTests.workspace))
    let total = declared.checks.map { declared.cases(of: $0, on: "yours") }.reduce(0, +)
    let report = try StepReport(step: Fixture.step1, run: run, declared: declared)
    #expect(!report.isDone)
    #expect(report.count(of: "yours") == "0 of \(total) checks pass, \(total) did not run")
    let text = Summary(report, both: false).text
    #expect(text.contains("The run stopped before every check had finished:\n"))
    #expect(text.contains("  The test process ended with signal 4.\n"))
  }

  @Test("A step's run that got to its end is read as the native build system's")
  func fullRunAmongOtherRuns() throws {
    let run = try Fixture.run("swiftbuild-step1")
    #expect(
      TestRunOutput.runs(in: TestRunOutput.lines(of: try Fixture.text("swiftbuild-step1")))
        .count == 11)
    #expect(run.finished && run.stopReasons.isEmpty && run.unfinishedTests.isEmpty)
    let report = try StepReport(step: Fixture.step1, run: run)
    #expect(report.ranToTheEnd && !report.isDone)
    #expect(report.yours.count == 34)
    #expect(report.count(of: "yours") == "17 of 34 checks pass, 8 stretch tasks open (optional)")
    #expect(Overview.state(of: report) == report.count(of: "yours"))
  }

  @Test("A solved step under Swift Build is done")
  func solvedAmongOtherRuns() throws {
    let report = try StepReport(
      step: Fixture.step1, run: try Fixture.run("swiftbuild-step1-solved"))
    #expect(report.isDone)
    #expect(report.count(of: "yours") == "34 of 34 checks pass")
    #expect(Summary(report, both: false).text.contains("Step 1 is done"))
  }

  @Test("Another step's empty runs are not that step's: no check of it ran")
  func otherStepsRanNothing() throws {
    #expect(throws: RunnerError.self) {
      try StepReport(step: Fixture.step2, run: try Fixture.run("swiftbuild-step1"))
    }
  }
}
