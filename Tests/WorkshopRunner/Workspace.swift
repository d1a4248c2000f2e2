import Foundation

/// The workshop's repository: the nearest folder at or above the current directory with a
/// `Package.swift` and a `Steps` folder.
package struct Workspace: Sendable {
  package let root: URL

  package init(root: URL) {
    self.root = root
  }

  /// The repository around `directory`, if any.
  package static func enclosing(_ directory: URL) -> Workspace? {
    var url = directory.standardizedFileURL
    while true {
      let manifest = url.appendingPathComponent("Package.swift").path
      let steps = url.appendingPathComponent("Steps").path
      if FileManager.default.fileExists(atPath: manifest),
        FileManager.default.fileExists(atPath: steps)
      {
        return Workspace(root: url)
      }
      let parent = url.deletingLastPathComponent()
      guard parent.path != url.path else { return nil }
      url = parent
    }
  }

  /// The file or folder at `path`, relative to the root.
  package func url(_ path: String) -> URL { root.appendingPathComponent(path) }

  /// The steps, from the folders `Steps/Step<N>-<Name>/`.
  package func steps() -> [Step] {
    Step.all(in: (try? FileManager.default.contentsOfDirectory(atPath: url("Steps").path)) ?? [])
  }

  /// Step `number`, or an error that names the steps there are.
  package func step(_ number: Int) throws(RunnerError) -> Step {
    let steps = steps()
    if let step = steps.first(where: { $0.number == number }) { return step }
    let range = steps.isEmpty ? "none" : "\(steps[0].number)–\(steps[steps.count - 1].number)"
    throw RunnerError(
      "There is no Step \(number) (no folder Steps/Step\(number)-…): the steps are \(range).")
  }
}

/// A failure the runner explains in one message and ends on.
package struct RunnerError: Error, CustomStringConvertible {
  package let description: String

  package init(_ description: String) {
    self.description = description
  }
}
