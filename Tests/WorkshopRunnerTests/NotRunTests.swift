import Foundation
import Testing
import WorkshopSupport
import workshop

/// A run that stopped early printed only the results it got to: the checks it never reached
/// count as not run, from the step's declared checks, never as passing and never left out.
@Suite("Runner: checks a stopped run never got to")
struct NotRunTests {
  static let workspace = Workspace(root: Repository.root)

  /// Two checks on two subjects a side, one on each side only, and a probe.
  static let source = """
    struct Subject {
      static let all: [Subject] = [
        Subject(side: .yours, shape: "class"), Subject(
          side: .yours, shape: "actor"),
        Subject(side: .solution, shape: "class"), Subject(side: .solution, shape: "actor"),
      ]
    }
    static let first = Self.step.check(
      "the first check", .failsOnStarter)
    static let second = step.check("the second (and last) check", .passesOnStarter)
    @Test("the first check", arguments: Subject.all)
    func first(_ subject: Subject) async {}
    @Test(
      "the second (and last) check",
      arguments: ExamSide.selected)
    func second(_ side: ExamSide) async {}
    @Test("probe Wall: a wall", arguments: ExamSide.selected, .timeLimit(.minutes(1)))
    func wall(_ side: ExamSide) async {}
    """

  @Test("A step's checks are read from its declarations, with the cases each runs")
  func readsDeclarations() {
    let declared = DeclaredChecks(source: Self.source)
    #expect(
      declared.checks.map(\.name) == [
        "probe Wall: a wall", "the first check", "the second (and last) check",
      ])
    #expect(declared.subjects == ["yours": 2, "solution": 2])
    #expect(
      declared.checks.map { declared.cases(of: $0, on: "yours") } == [1, 2, 1])
  }

  @Test("Every step's checks are found in its sources, each with a @Test the runner reads")
  func readsEveryStep() throws {
    let steps = Self.workspace.steps()
    #expect(steps.count >= 6)
    for step in steps {
      let declared = try #require(DeclaredChecks.read(step, in: Self.workspace), "\(step.name)")
      #expect(declared.checks.count >= 6, "\(step.name)")
      for check in declared.checks {
        let known = ["Subject.all", "ExamSide.selected"].contains {
          check.arguments?.contains($0) == true
        }
        #expect(known, "\(step.name): '\(check.name)' has arguments \(check.arguments ?? "none")")
      }
    }
  }

  @Test("A full run prints as many results per check as its declaration says")
  func casesMatchARun() throws {
    for (name, step) in [
      ("step1-yours", Fixture.step1), ("step3-yours", Fixture.step3),
      ("step5-yours", Fixture.step5),
    ] {
      let declared = try #require(DeclaredChecks.read(step, in: Self.workspace))
      let results = try Fixture.run(name).results(of: step)
      for check in declared.checks {
        let printed = results.filter { $0.name == check.name }.count
        // A fixture older than a check has none of its results.
        guard printed > 0 else { continue }
        #expect(printed == declared.cases(of: check, on: "yours"), "\(name): \(check.name)")
      }
    }
  }

  @Test("A crashed run counts the checks it never got to as not run")
  func crashCountsTheRest() throws {
    let declared = try #require(DeclaredChecks.read(Fixture.step1, in: Self.workspace))
    let total = declared.checks.map { declared.cases(of: $0, on: "yours") }.reduce(0, +)
    let report = try StepReport(
      step: Fixture.step1, run: try Fixture.run("crash"), declared: declared)
    // Two results came in, one passing, before the crash.
    let count = "1 of \(total) checks pass, \(total - 2) did not run"
    #expect(report.count(of: "yours") == count)
    #expect(
      Overview.state(of: report)
        == count + "  (the run stopped early: `workshop check 1` says why)")
    #expect(!report.isDone)
    let text = Summary(report, both: false).text
    #expect(text.contains("Your side: \(count)."))
    #expect(text.contains("Not started when it stopped:\n  "))
    #expect(text.contains("  a save that fails inside delete() reaches the caller"))
    #expect(text.contains("count as not run: neither passed nor failed"))
  }

  @Test("A crash in Step 3, one case a check: the count is of the step's every check")
  func crashWithOneCasePerCheck() throws {
    let declared = try #require(DeclaredChecks.read(Fixture.step3, in: Self.workspace))
    let total = declared.checks.count
    let report = try StepReport(
      step: Fixture.step3, run: try Fixture.run("crash-step3"), declared: declared)
    #expect(report.results.count == 2)
    #expect(report.count(of: "yours") == "1 of \(total) checks pass, \(total - 2) did not run")
    let text = Summary(report, both: false).text
    // The check that crashed was running; some never started.
    let running = try #require(
      text.components(separatedBy: "Running, with no result yet, when it stopped:\n").last?
        .components(separatedBy: "Not started when it stopped:\n"))
    #expect(running.count == 2)
    #expect(running.first?.contains("  savedEntities(prefix:) hands out the saved") == true)
    #expect(running.last?.contains("  the actor's jobs run on the context's queue\n") == true)
  }

  @Test("A check whose cases did not all print a result misses the others")
  func stoppedRunOfPlainChecks() throws {
    let output = """
      [Step1] ✔ yours · class — the first check
      Fatal error: stopped
      """
    let report = try StepReport(
      step: Fixture.step1, run: TestRunOutput(output: output),
      declared: DeclaredChecks(source: Self.source))
    #expect(report.count(of: "yours") == "1 of 4 checks pass, 3 did not run")
    #expect(
      report.notRun(on: "yours") == [
        .init(check: "probe Wall: a wall", count: 1), .init(check: "the first check", count: 1),
        .init(check: "the second (and last) check", count: 1),
      ])
  }

  @Test("A run that got to its end counts only what ran: a check left out was filtered out")
  func finishedRunCountsWhatRan() throws {
    let declared = try #require(DeclaredChecks.read(Fixture.step1, in: Self.workspace))
    let report = try StepReport(
      step: Fixture.step1, run: try Fixture.run("step1-yours"), declared: declared)
    #expect(report.notRun(on: "yours").isEmpty)
    #expect(report.count(of: "yours") == "9 of 16 checks pass")
  }

  @Test("Limited to one check (WORKSHOP_CHECK), a stopped run misses only that one")
  func limitedRun() throws {
    let report = try StepReport(
      step: Fixture.step1, run: TestRunOutput(output: "Fatal error: stopped\n"),
      only: "the first check", declared: DeclaredChecks(source: Self.source))
    #expect(report.notRun(on: "yours") == [.init(check: "the first check", count: 2)])
  }
}
