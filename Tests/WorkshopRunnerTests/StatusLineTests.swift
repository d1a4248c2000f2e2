import Testing
import workshop

/// The overview's last line, from reports of captured runs.
@Suite("Runner: the status line")
struct StatusLineTests {
  @Test("Done, started and not started, from captured runs")
  func progress() throws {
    let solved = try StepReport(step: Fixture.step1, run: try Fixture.run("step1-solved"))
    let open = try StepReport(step: Fixture.step3, run: try Fixture.run("step3-yours"))
    let crashed = try StepReport(step: Fixture.step1, run: try Fixture.run("crash"))
    #expect(StatusLine.progress(report: solved, edited: true) == .done)
    // Committed work that passes is done all the same.
    #expect(StatusLine.progress(report: solved, edited: false) == .done)
    #expect(StatusLine.progress(report: open, edited: true) == .started)
    #expect(StatusLine.progress(report: open, edited: false) == .notStarted)
    #expect(StatusLine.progress(report: open, edited: nil) == .notStarted)
    #expect(StatusLine.progress(report: crashed, edited: true) == .started)
    // No check ran: the step is not done, whatever its folder holds.
    #expect(StatusLine.progress(report: nil, edited: true) == .started)
    #expect(StatusLine.progress(report: nil, edited: false) == .notStarted)
  }

  @Test("One short line, the steps in order, with what the marks mean")
  func line() {
    let line = StatusLine.text([
      (1, .done), (2, .done), (3, .started), (4, .notStarted), (5, .notStarted),
      (6, .notStarted),
    ])
    #expect(line == "Status: 1 ✔ 2 ✔ 3 … 4 – 5 – 6 –  (✔ done, … started, – not started)")
    #expect(!line.contains("\n"))
  }
}
