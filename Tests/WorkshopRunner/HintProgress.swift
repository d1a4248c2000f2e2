import Foundation

/// The hint level reached per step, kept in `.workshop/hints.json` (git-ignored), so that
/// `hint` shows one more each time.
package struct HintProgress: Codable, Equatable, Sendable {
  /// The last level shown, by step name (`Step1`); a step not in it has shown none.
  package var reached: [String: Int] = [:]

  package init(reached: [String: Int] = [:]) {
    self.reached = reached
  }

  /// The level `hint` shows now for `step`, out of `count` levels, and remembers; nil for
  /// `--reset`, which shows none and forgets the step.
  package mutating func advance(
    _ step: Step, mode: Command.HintMode, count: Int
  ) -> Int? {
    let current = min(reached[step.name] ?? 0, count)
    let level: Int? =
      switch mode {
      case .next: min(current + 1, count)
      case .again: max(current, 1)
      case .reset: nil
      }
    reached[step.name] = level
    return level
  }

  /// Where the progress is kept.
  package static func url(in workspace: Workspace) -> URL {
    workspace.url(".workshop/hints.json")
  }

  /// The progress kept in `workspace`; none when there is no file yet or it cannot be read.
  package static func load(from workspace: Workspace) -> HintProgress {
    guard let data = try? Data(contentsOf: url(in: workspace)),
      let progress = try? JSONDecoder().decode(HintProgress.self, from: data)
    else { return HintProgress() }
    return progress
  }

  package func save(to workspace: Workspace) throws {
    let url = Self.url(in: workspace)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    try encoder.encode(self).write(to: url, options: .atomic)
  }
}
