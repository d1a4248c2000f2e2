import Foundation

/// `workshop hint N [--again | --reset]`: one level of the step's hints at a time.
enum HintCommand {
  static func run(_ step: Step, mode: Command.HintMode, in workspace: Workspace) throws -> Int32 {
    let hints = StepHints(folder: workspace.url(step.hints))
    guard !hints.levels.isEmpty else {
      throw RunnerError("Step \(step.number) has no hints: \(step.hints)/ has no 1-….md.")
    }
    var progress = HintProgress.load(from: workspace)
    let level = progress.advance(step, mode: mode, count: hints.levels.count)
    try progress.save(to: workspace)
    if let level {
      Console.say(hints.text(level: level, step: step))
    } else {
      Console.say(
        "Step \(step.number)'s hints start over: swift run workshop hint \(step.number) shows "
          + "Hint 1 of \(hints.levels.count).")
    }
    return 0
  }
}
