import Foundation

/// `workshop` with no command: every step's checks on your side, a line per step as it
/// finishes, the next step to do, and last the status line.
package enum Overview {
  static func run(in workspace: Workspace) throws -> Int32 {
    let steps = workspace.steps()
    guard !steps.isEmpty else { throw RunnerError("No step folders (Steps/Step<N>-<Name>/).") }
    if let failure = try Checks.build(in: workspace) {
      Console.say(
        failure.explanation(checking: nil, steps: steps, changed: workspace.differsFromCommit))
      return 2
    }
    let width = steps.map(\.title.count).max() ?? 0
    var next: Step?
    var progress: [(number: Int, progress: StatusLine.Progress)] = []
    for step in steps {
      let title = step.title.padding(toLength: width, withPad: " ", startingAt: 0)
      let started = Date()
      let run = try Checks.test(
        step, both: false, in: workspace, label: "Step \(step.number)  \(title)  ")
      let elapsed = Checks.seconds(since: started)
      let report = try? StepReport(
        step: step, run: run, declared: DeclaredChecks.read(step, in: workspace))
      let edited = workspace.differsFromCommit(step.starter)
      progress.append((step.number, StatusLine.progress(report: report, edited: edited)))
      guard let report else {
        Console.say("no check ran  (\(elapsed))")
        next = next ?? step
        continue
      }
      Console.say("\(state(of: report))  (\(elapsed))")
      if !report.isDone { next = next ?? step }
    }
    Console.say()
    guard let next else {
      Console.say("Every step is done. Compare yours with the solutions: swift run workshop diff N")
      Console.say(StatusLine.text(progress))
      return 0
    }
    var advice =
      "Next: Step \(next.number) (\(next.title)): swift run workshop check \(next.number)"
    if let deck = deck(of: next, in: workspace) { advice += "; read \(deck)" }
    Console.say(advice)
    Console.say("Stuck? swift run workshop hint \(next.number) shows the next hint.")
    Console.say(StatusLine.text(progress))
    return 0
  }

  /// A step's line, after its title: the count on your side, and done, or why it is not.
  package static func state(of report: StepReport) -> String {
    var state = report.count(of: "yours")
    if report.isDone {
      state += "  ✔ done"
    } else if !report.ranToTheEnd {
      state += "  (the run stopped early: `workshop check \(report.step.number)` says why)"
    }
    return state
  }

  /// The step's deck, `slides/0N-….md`, if there is one.
  static func deck(of step: Step, in workspace: Workspace) -> String? {
    let prefix = String(format: "%02d-", step.number)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: workspace.url("slides").path))
    return names?.sorted().first { $0.hasPrefix(prefix) && $0.hasSuffix(".md") }
      .map { "slides/\($0)" }
  }
}
