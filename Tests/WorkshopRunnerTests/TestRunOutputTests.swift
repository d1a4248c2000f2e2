import Testing
import workshop

@Suite("Runner: how a run ended")
struct TestRunOutputTests {
  @Test("A run that got to its end is finished, with nothing that stopped it")
  func finishedRun() throws {
    // step4-yours quotes an exit test's fatal error in an issue: it did not stop the run.
    for name in [
      "step1-yours", "step3-yours", "step4-yours", "step5-yours", "step1-solved", "no-match",
    ] {
      let run = try Fixture.run(name)
      #expect(run.finished, "\(name)")
      #expect(run.stopReasons.isEmpty, "\(name)")
      #expect(run.unfinishedTests.isEmpty, "\(name)")
    }
  }

  @Test("A run that crashed is unfinished, says why, and names what was running")
  func crashedRun() throws {
    let run = try Fixture.run("crash")
    #expect(!run.finished)
    #expect(
      run.stopReasons.contains {
        $0.hasSuffix("Fatal error: Unexpectedly found nil while unwrapping an Optional value")
      })
    #expect(
      run.stopReasons.contains("*** Program crashed: Illegal instruction at 0x00007f6e0c16df7f ***")
    )
    #expect(run.stopReasons.contains("The test process ended with signal 4."))
    #expect(
      run.unfinishedTests.contains(
        "the actor twin records exactly the same violations as the class"))
    // A check whose every case printed its result was not running.
    #expect(
      !run.unfinishedTests.contains("configure() and rename(to:) do not block the caller's thread"))
    // Results printed before the crash still count.
    #expect(run.results.count == 2)
  }

  @Test("A filter that matched nothing is an error, not a success")
  func noCheckRan() throws {
    let run = try Fixture.run("no-match")
    #expect(run.finished && run.results.isEmpty)
    #expect(throws: RunnerError.self) { try StepReport(step: Fixture.step1, run: run) }
    do {
      _ = try StepReport(step: Fixture.step1, run: run, only: "no such check")
      Issue.record("no error")
    } catch {
      #expect(error.description.hasPrefix("No check of Step 1 ran"))
      #expect(error.description.contains("WORKSHOP_CHECK is set to 'no such check'"))
    }
  }

  @Test("A step's results are its own: another step's lines do not count")
  func resultsOfOneStep() throws {
    let run = try Fixture.run("step1-yours")
    #expect(run.results(of: Fixture.step1).count == 16)
    #expect(run.results(of: Fixture.step2).isEmpty)
    #expect(throws: RunnerError.self) { try StepReport(step: Fixture.step2, run: run) }
  }

  @Test("Terminal colours and carriage returns are not part of a line")
  func cleansLines() {
    let coloured = "\u{1B}[1;31m[Step1] ✘ yours — a check\u{1B}[0m\r"
    #expect(TestRunOutput.lines(of: coloured) == ["[Step1] ✘ yours — a check"])
    #expect(TestRunOutput(output: coloured).results.first?.name == "a check")
  }
}
