import Foundation

/// `workshop watch N [--both] [--runs K]`: `check N`, then again whenever a `.swift` file of
/// the step changes, is added or is removed, until interrupted or after K runs.
enum Watch {
  static func run(_ step: Step, both: Bool, runs: Int?, in workspace: Workspace) throws -> Int32 {
    var count = 0
    while true {
      // Taken before the run, so that an edit saved during the run starts the next one.
      let before = snapshot(of: step, in: workspace)
      let status = try CheckCommand.run(step, both: both, in: workspace)
      count += 1
      if let runs, count >= runs {
        Console.say("\nStopped after \(count) run\(count == 1 ? "" : "s") (--runs \(runs)).")
        return status
      }
      Console.say(
        "\nWatching \(step.starter)/**/*.swift: saving a file checks again. Ctrl-C stops.")
      while snapshot(of: step, in: workspace) == before {
        // Polls the step's files once a second for a change: the runner's watch loop, not a
        // test, and no race is awaited by it.
        Thread.sleep(forTimeInterval: 1)
      }
      Console.say("\nA file of Step \(step.number) changed: checking again.\n")
    }
  }

  /// The modification time of every `.swift` file under the step's folder, by path.
  static func snapshot(of step: Step, in workspace: Workspace) -> [String: Date] {
    let folder = workspace.url(step.starter)
    guard
      let walker = FileManager.default.enumerator(
        at: folder, includingPropertiesForKeys: [.contentModificationDateKey])
    else { return [:] }
    var times: [String: Date] = [:]
    for case let url as URL in walker where url.pathExtension == "swift" {
      times[url.path] =
        (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
        ?? .distantPast
    }
    return times
  }
}
