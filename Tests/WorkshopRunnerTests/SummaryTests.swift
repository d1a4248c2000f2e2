import Testing
import workshop

@Suite("Runner: the summary of a step")
struct SummaryTests {
  @Test("Every check is listed once, by name, then yours before the solution, then by shape")
  func listsInAStableOrder() throws {
    let report = try StepReport(step: Fixture.step1, run: try Fixture.run("step1-both"))
    #expect(report.results.count == 32)
    let keys = report.results.map { ($0.name, $0.side == "yours" ? 0 : 1, $0.shape ?? "") }
    #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
    let text = Summary(report, both: true).text
    let listed = text.split(separator: "\n").filter { $0.hasPrefix("✔ ") || $0.hasPrefix("✘ ") }
    #expect(listed.map(String.init) == report.results.map(\.text))
    #expect(text.contains("Your side: 9 of 16 checks pass."))
    #expect(text.contains("The solution: 16 of 16 checks pass."))
  }

  @Test("The same run gives the same summary, whatever order the checks finished in")
  func isStable() throws {
    let text = try Fixture.text("step1-yours")
    let reversed = String(text.split(separator: "\n").reversed().joined(separator: "\n"))
    let forwards = try StepReport(step: Fixture.step1, run: TestRunOutput(output: text))
    let backwards = try StepReport(step: Fixture.step1, run: TestRunOutput(output: reversed))
    #expect(forwards.results == backwards.results)
  }

  @Test("The failures follow the list, in its order, each with what it observed and its lesson")
  func failuresInOrder() throws {
    let report = try StepReport(step: Fixture.step1, run: try Fixture.run("step1-yours"))
    let failing = report.results.filter { !$0.passed }.map(\.name)
    var names: [String] = []
    for name in failing where names.last != name { names.append(name) }
    #expect(report.failures.map(\.check) == names)
    let text = Summary(report, both: false).text
    let headers = text.split(separator: "\n").filter { $0.first?.isNumber == true }
    #expect(headers.count == 4)
    for (index, (header, name)) in zip(headers, names).enumerated() {
      #expect(header.hasPrefix("\(index + 1). ✘ \(name) — "))
    }
    #expect(headers[0].hasSuffix(" — yours · actor, yours · class"))
    // Both shapes observed different contexts, under one lesson printed once.
    let configure = text.components(separatedBy: "2. ✘ ")[1].components(separatedBy: "\n\n")[0]
    #expect(configure.components(separatedBy: "   Observed (yours · actor): ").count == 2)
    #expect(configure.components(separatedBy: "   Observed (yours · class): ").count == 2)
    #expect(configure.components(separatedBy: "   Rule: ").count == 2)
    #expect(configure.contains("   Read: slides/01-unsafe-controller.md#the-rule"))
    // Without Swift Testing's decorations.
    for decoration in ["↳", "recorded an issue", "Check: ", "◇", "Step1Tests.swift"] {
      #expect(!text.contains(decoration), "\(decoration)")
    }
  }

  @Test("One lesson observed several times shows each observation, and the lesson once")
  func foldsALesson() throws {
    let report = try StepReport(step: Fixture.step5, run: try Fixture.run("step5-yours"))
    let failure = try #require(
      report.failures.first { $0.check == "a write never runs alongside a read or another write" })
    let lines = Summary.describe(failure, number: 1, step: Fixture.step5)
    #expect(lines.filter { $0.hasPrefix("   Observed: ") }.count == 4)
    #expect(lines.filter { $0.hasPrefix("   Rule: ") }.count == 1)
  }

  @Test("A check's lesson is shown, not the exit test's expectation beside it")
  func showsLessonsOnly() throws {
    let report = try StepReport(step: Fixture.step4, run: try Fixture.run("step4-yours"))
    let text = Summary(report, both: false).text
    #expect(
      text.contains("Observed: checkIsolated() stopped the program inside the context's perform"))
    #expect(!text.contains("checkIsolated() inside the context's perform must return"))
  }

  @Test("A failing check that printed no lesson says where to look")
  func failureWithoutDetails() throws {
    let run = TestRunOutput(
      output: "[Step1] ✘ yours — a check that says nothing\n✘ Test run with 1 test failed.")
    let report = try StepReport(step: Fixture.step1, run: run)
    let text = Summary(report, both: false).text
    #expect(text.contains("1. ✘ a check that says nothing — yours"))
    #expect(text.contains("No details were printed: `swift test --filter Step1` shows the output."))
  }

  @Test("A step is done when every check on your side passes")
  func done() throws {
    let solved = try StepReport(step: Fixture.step1, run: try Fixture.run("step1-solved"))
    #expect(solved.isDone)
    #expect(solved.failures.isEmpty)
    #expect(Summary(solved, both: false).text.contains("Step 1 is done"))
    let starter = try StepReport(step: Fixture.step1, run: try Fixture.run("step1-yours"))
    #expect(!starter.isDone)
  }

  @Test("A known gap fails by design: it neither blocks a step nor shows as a failure")
  func knownGap() throws {
    let solved = try StepReport(step: Fixture.step3, run: try Fixture.run("step3-solved"))
    #expect(solved.isDone)
    #expect(solved.count(of: "yours") == "9 of 10 checks pass, 1 known gap (fails by design)")
    let starter = try StepReport(step: Fixture.step3, run: try Fixture.run("step3-yours"))
    #expect(!starter.isDone)
    #expect(
      !starter.failures.contains { $0.check == "the actor's jobs run on the context's queue" })
    #expect(starter.failures.count == 3)
  }

  @Test("A run that crashed is not done, and its summary says what stopped it")
  func crashed() throws {
    let report = try StepReport(step: Fixture.step1, run: try Fixture.run("crash"))
    #expect(!report.isDone)
    let text = Summary(report, both: false).text
    #expect(text.contains("The run stopped before every check had finished:"))
    #expect(text.contains("Fatal error: Unexpectedly found nil while unwrapping an Optional value"))
    #expect(text.contains("  the actor twin records exactly the same violations as the class"))
  }
}
