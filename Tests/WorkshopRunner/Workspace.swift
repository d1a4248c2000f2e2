import Foundation

/// The workshop's repository: the nearest folder at or above the current directory with a
/// `Package.swift` and a `Steps` folder, else the one the runner was built from.
package struct Workspace: Sendable {
  package let root: URL

  package init(root: URL) {
    self.root = root
  }

  /// Which way `locate` found the repository.
  package enum Origin: Equatable, Sendable {
    /// At or above the current directory: `swift run workshop` in the clone.
    case currentDirectory
    /// Above the runner's source file: run from Xcode, whose working directory is the build
    /// products folder in DerivedData unless the scheme sets another.
    case sourceFile
  }

  /// The path of this file when the runner was compiled: inside the clone it was built from.
  package static let sourceFile = #filePath

  /// The repository around `currentDirectory`, else the one around `sourceFile`, and which of
  /// the two it is; nil when neither is inside a workshop.
  package static func locate(
    currentDirectory: URL, sourceFile: String = Workspace.sourceFile
  ) -> (workspace: Workspace, origin: Origin)? {
    if let workspace = enclosing(currentDirectory) { return (workspace, .currentDirectory) }
    let source = URL(fileURLWithPath: sourceFile).deletingLastPathComponent()
    if let workspace = enclosing(source) { return (workspace, .sourceFile) }
    return nil
  }

  /// What to do when `locate` found no workshop: where it looked, and how to start the runner
  /// inside the clone, from a terminal or from Xcode.
  package static func notFound(currentDirectory: URL, sourceFile: String) -> String {
    """
    workshop: no workshop here. The runner looks for the folder with Package.swift and Steps/ \
    at or above the working directory (\(currentDirectory.path)), then above the folder it was \
    built from (\(URL(fileURLWithPath: sourceFile).deletingLastPathComponent().path)).
    In a terminal, go into your clone of the workshop first:
        cd <your clone>
        swift run workshop
    In Xcode, set the scheme's working directory to the clone: Product ▸ Scheme ▸ Edit Scheme… ▸ \
    Run ▸ Options ▸ Working Directory ▸ Use custom working directory ▸ the clone's folder.
    """
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

  /// Whether the file or folder at `path` differs from the last commit, untracked files
  /// included (`git status --porcelain`); nil when git cannot say (no git, or no clone). A
  /// failed build reads it to tell an edit to a step's checks from one to its starter.
  package func differsFromCommit(_ path: String) -> Bool? {
    guard let result = try? Shell.run("git", ["status", "--porcelain", "--", path], in: root),
      result.status == 0
    else { return nil }
    return !result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
  }

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
