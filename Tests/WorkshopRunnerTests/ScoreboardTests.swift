import Testing
import workshop

@Suite("Runner: scoreboard lines")
struct ScoreboardTests {
  @Test("A scoreboard line gives its step, mark, side, shape, name and note")
  func parsesEveryForm() throws {
    let shaped = try #require(
      CheckResult(
        line:
          "[Step1] ✘ yours · class — configure() from many concurrent tasks records no violation"))
    #expect(shaped.step == "Step1")
    #expect(!shaped.passed)
    #expect(shaped.side == "yours")
    #expect(shaped.shape == "class")
    #expect(shaped.name == "configure() from many concurrent tasks records no violation")
    #expect(shaped.note == .none)

    let plain = try #require(
      CheckResult(
        line: "[Step2] ✔ solution — the kept ID is permanent, and any context can resolve it"))
    #expect(plain.passed && plain.side == "solution" && plain.shape == nil)
    #expect(plain.label == "solution")

    let gap = try #require(
      CheckResult(
        line: "[Step3] ✘ yours — the actor's jobs run on the context's queue (known gap: a global "
          + "actor runs on the cooperative pool; step 4 fixes it)"))
    #expect(gap.name == "the actor's jobs run on the context's queue")
    #expect(gap.note == .knownGap("a global actor runs on the cooperative pool; step 4 fixes it"))
    #expect(gap.isSettled)

    let expected = try #require(
      CheckResult(
        line: "[Step2] ✘ yours — update(_:) lets every error through: no try?, try! or empty catch "
          + "in the source (expected: the untouched starter fails it)"))
    #expect(expected.note == .expected("the untouched starter fails it"))
    #expect(!expected.isSettled)
  }

  @Test("Any other line of output is no scoreboard line")
  func rejectsOtherLines() {
    for line in [
      "[0/1] Planning build", "[4/7] Compiling Step2 CoreDataEntity.swift",
      "✔ Test \"configure() …\" with 4 test cases passed after 0.041 seconds.",
      "[Step1] ? yours — something", "[Step1] ✔ somebody — something", "[Step1] ✔ yours something",
      "",
    ] {
      #expect(CheckResult(line: line) == nil, "\(line)")
    }
  }

  @Test("Every scoreboard line of a real run is read, and prints back as it was")
  func readsARealRun() throws {
    let text = try Fixture.text("step1-yours")
    let lines = text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("[Step1] ") }
    let run = TestRunOutput(output: text)
    #expect(lines.count == 16)
    #expect(run.results.count == lines.count)
    #expect(run.results.map { "[Step1] \($0.text)" } == lines)
    #expect(run.results.filter(\.passed).count == 9)
    #expect(Set(run.results.map(\.side)) == ["yours"])
    #expect(run.results.contains { $0.shape == "KeptIDInPerform" })
  }
}
