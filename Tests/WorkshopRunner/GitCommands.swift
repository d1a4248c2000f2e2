import Foundation

/// The command that is plain git, as the README shows it: `diff` compares a step with its
/// solution.
enum GitCommands {
  /// `git diff --no-index --diff-filter=M Steps/StepN-… Solutions/StepN-…`: only the files both
  /// folders have, so the starter's hints stay out.
  static func diff(_ step: Step, in workspace: Workspace) throws -> Int32 {
    let shown = ["diff", "--no-index", "--diff-filter=M", step.starter, step.solution]
    Console.say("$ git \(shown.joined(separator: " "))")
    var arguments = shown
    if Console.isTerminal { arguments.insert("--color=always", at: 3) }
    let result = try Shell.run("git", arguments, in: workspace.root)
    // git diff --no-index exits 1 when the files differ, and above 1 when it failed.
    guard result.status <= 1 else { throw RunnerError("git diff failed:\n\(result.output)") }
    if result.output.isEmpty {
      Console.say(
        "No difference: every file of your Step \(step.number) is the solution's (the hints left "
          + "out).")
    } else {
      Console.say(result.output, terminator: result.output.hasSuffix("\n") ? "" : "\n")
    }
    return 0
  }
}
