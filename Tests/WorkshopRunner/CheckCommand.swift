import Foundation
import WorkshopEnvironment

/// `workshop check N [--both]`: the step's checks, then one summary.
enum CheckCommand {
  static func run(_ step: Step, both: Bool, in workspace: Workspace) throws -> Int32 {
    let side = both ? "both sides" : "your side (WORKSHOP_SIDE=yours)"
    Console.say("Checking Step \(step.number) on \(side): swift test --filter \(step.filter)")
    if let failure = try Checks.build(in: workspace) {
      Console.say(
        failure.explanation(
          checking: step, steps: workspace.steps(), changed: workspace.differsFromCommit))
      return 2
    }
    let started = Date()
    let run = try Checks.test(
      step, both: both, in: workspace, label: "Running Step \(step.number)'s checks… ")
    Console.say("done (\(Checks.seconds(since: started))).\n")
    let only = WorkshopEnvironment.value(WorkshopEnvironment.check)
    let report = try StepReport(
      step: step, run: run, only: only, declared: DeclaredChecks.read(step, in: workspace))
    Console.say(Summary(report, both: both).text)
    return report.isDone ? 0 : 1
  }
}
