import Foundation

/// The runner's commands. Each returns the exit status: 0 when all is well, 1 when a check
/// fails (or the doctor found something missing, or a reset left a file that differs), 2 when
/// there was nothing to judge (a usage error, a step that does not exist, a build that failed,
/// no check that ran).
package enum Workshop {
  package static func run(_ arguments: [String]) -> Int32 {
    let command: Command
    do {
      command = try Command(arguments: arguments)
    } catch {
      Console.complain("workshop: \(error)\n\n\(Command.usage)")
      return 2
    }
    if command == .help {
      Console.say(Command.usage)
      return 0
    }
    let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    guard let (workspace, origin) = Workspace.locate(currentDirectory: here) else {
      Console.complain(Workspace.notFound(currentDirectory: here, sourceFile: Workspace.sourceFile))
      return 2
    }
    if origin == .sourceFile {
      // Said, because a second clone is easy to mistake for the first.
      Console.complain(
        "workshop: the working directory (\(here.path)) is outside the workshop; using "
          + "\(workspace.root.path), where the runner was built from.")
    }
    do {
      switch command {
      case .overview:
        return try Overview.run(in: workspace)
      case .check(let number, let both):
        return try CheckCommand.run(try workspace.step(number), both: both, in: workspace)
      case .race(let number, let runs):
        return try RaceCheck.run(try workspace.step(number), runs: runs, in: workspace)
      case .watch(let number, let both, let runs):
        return try Watch.run(try workspace.step(number), both: both, runs: runs, in: workspace)
      case .hint(let number, let mode):
        return try HintCommand.run(try workspace.step(number), mode: mode, in: workspace)
      case .reset(let number, let confirmed):
        return try Reset.run(
          try workspace.step(number), confirmed: confirmed, in: workspace)
      case .diff(let number):
        return try GitCommands.diff(try workspace.step(number), in: workspace)
      case .doctor:
        return DoctorCommand.run(in: workspace)
      case .newStep(let number, let name, let buildsOn):
        return try NewStep.run(number: number, name: name, buildsOn: buildsOn, in: workspace)
      case .help:
        return 0
      }
    } catch {
      Console.complain("workshop: \(error)")
      return 2
    }
  }
}
