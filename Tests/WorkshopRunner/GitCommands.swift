import Foundation

/// The commands that are plain git, as the README shows them: `reset` puts a step's starter
/// back, `diff` compares a step with its solution.
enum GitCommands {
  /// `git checkout -- Steps/StepN-…`, after showing what it discards (`git status --short`) and,
  /// unless `confirmed`, asking.
  static func reset(_ step: Step, confirmed: Bool, in workspace: Workspace) throws -> Int32 {
    let changes = try status(of: step, in: workspace)
    let tracked = changes.filter { !$0.hasPrefix("??") }
    let untracked = changes.filter { $0.hasPrefix("??") }
    guard !tracked.isEmpty else {
      Console.say("Step \(step.number) is its starter already: git has nothing to restore.")
      if !untracked.isEmpty { Console.say(untrackedNote(untracked)) }
      return 0
    }
    Console.say(
      "Resetting Step \(step.number) (git checkout -- \(step.starter)) discards these changes:")
    Console.say(tracked.map { "  \($0)" }.joined(separator: "\n"))
    if !untracked.isEmpty { Console.say(untrackedNote(untracked)) }
    guard confirmed || Console.confirm("Discard them?") else {
      Console.say("Nothing changed.")
      return 1
    }
    let checkout = try Shell.run("git", ["checkout", "--", step.starter], in: workspace.root)
    guard checkout.status == 0 else {
      throw RunnerError("git checkout failed:\n\(checkout.output)")
    }
    let left = try status(of: step, in: workspace).filter { !$0.hasPrefix("??") }
    guard left.isEmpty else {
      Console.say(
        "Restored from git's index, but these changes were staged (git add), so they stay:\n"
          + left.map { "  \($0)" }.joined(separator: "\n")
          + "\n`git checkout HEAD -- \(step.starter)` restores the committed starter.")
      return 1
    }
    Console.say(
      "Step \(step.number) is back to its starter. Check it: swift run workshop check \(step.number)"
    )
    return 0
  }

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

  /// `git status --short` of the step's folder, a line per file.
  private static func status(of step: Step, in workspace: Workspace) throws -> [String] {
    let result = try Shell.run(
      "git", ["status", "--short", "--", step.starter], in: workspace.root)
    guard result.status == 0 else { throw RunnerError("git status failed:\n\(result.output)") }
    return result.output.split(separator: "\n").map(String.init)
  }

  private static func untrackedNote(_ untracked: [String]) -> String {
    "Files git does not track (??) stay as they are; delete them yourself if they should go:\n"
      + untracked.map { "  \($0)" }.joined(separator: "\n")
  }
}
