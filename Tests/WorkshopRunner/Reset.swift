import Foundation

/// `reset N`: puts a step's starter back as last committed, after showing which files change and
/// asking. Every file it replaces or removes is first copied to `.workshop/saved/StepN-<time>/`
/// (git ignores `.workshop/`), under its path in the clone, so that one `cp` brings it back.
/// Saying no changes nothing and is not an error.
package enum Reset {
  /// A file of the step's folder that differs from the starter.
  struct Change: Equatable {
    enum Kind: Equatable {
      /// Changed, staged or not: the starter's version replaces it.
      case edited
      /// Added to git (`git add`), not in the starter: removed.
      case added
      /// Not known to git: removed.
      case untracked
      /// Deleted: the starter's version comes back.
      case deleted
    }

    let path: String
    let kind: Kind

    /// Whether the file is there to keep a copy of.
    var isKept: Bool { kind != .deleted }

    var line: String {
      switch kind {
      case .edited: "  edited     \(path)"
      case .added: "  new        \(path)  (removed)"
      case .untracked: "  untracked  \(path)  (removed)"
      case .deleted: "  deleted    \(path)  (comes back)"
      }
    }
  }

  package static func run(
    _ step: Step, confirmed: Bool, in workspace: Workspace, now: Date = Date(),
    ask: (String) -> Bool = Console.confirm, say: (String) -> Void = { Console.say($0) }
  ) throws -> Int32 {
    let changes = try self.changes(of: step, in: workspace)
    guard !changes.isEmpty else {
      say(
        "Step \(step.number) is its starter already (\(step.starter), as last committed): "
          + "nothing to reset.")
      return 0
    }
    say(
      "Resetting Step \(step.number) puts back its starter (\(step.starter), as last "
        + "committed). These files change:")
    say(changes.map(\.line).joined(separator: "\n"))
    say("A copy of each file it replaces or removes is kept first, in .workshop/saved/.")
    guard confirmed || ask("Reset Step \(step.number)?") else {
      say("Nothing changed.")
      return 0
    }
    let kept = changes.filter(\.isKept)
    // Only deleted files: there is nothing to keep, and the starter's versions come back.
    let folder = kept.isEmpty ? nil : try keep(kept, of: step, in: workspace, now: now)
    let restore = try Shell.run(
      "git", ["restore", "--source=HEAD", "--staged", "--worktree", "--", step.starter],
      in: workspace.root)
    guard restore.status == 0 else {
      throw RunnerError(
        "git restore failed (your files are kept in \(folder ?? "no folder: none to keep")):\n"
          + restore.output)
    }
    for change in changes where change.kind == .untracked {
      try FileManager.default.removeItem(at: workspace.url(change.path))
    }
    if let folder {
      let copy =
        "cp -R \(quoted(workspace.url("\(folder)/Steps").path)) \(quoted(workspace.root.path))"
      say(
        "Your files are kept in \(folder) (git ignores .workshop/). To get them back, "
          + "over the starter's:\n  \(copy)")
    }
    let left = try self.changes(of: step, in: workspace)
    guard left.isEmpty else {
      say("These still differ from the starter:\n" + left.map(\.line).joined(separator: "\n"))
      return 1
    }
    say(
      "Step \(step.number) is back to its starter. Check it: swift run workshop check \(step.number)"
    )
    return 0
  }

  /// The files of the step's folder that differ from the last commit, untracked ones included
  /// (`git status --porcelain -z`, whose paths come unquoted).
  static func changes(of step: Step, in workspace: Workspace) throws -> [Change] {
    let result = try Shell.run(
      "git",
      ["status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--", step.starter],
      in: workspace.root)
    guard result.status == 0 else { throw RunnerError("git status failed:\n\(result.output)") }
    var changes: [Change] = []
    for entry in result.output.split(separator: "\0") where entry.count > 3 {
      let code = entry.prefix(2)
      let path = String(entry.dropFirst(3))
      guard !changes.contains(where: { $0.path == path }) else { continue }
      let exists = FileManager.default.fileExists(atPath: workspace.url(path).path)
      let kind: Change.Kind =
        code == "??" ? .untracked : !exists ? .deleted : code.hasPrefix("A") ? .added : .edited
      changes.append(Change(path: path, kind: kind))
    }
    return changes
  }

  /// Copies `changes` to a new folder `.workshop/saved/StepN-<yyyyMMdd-HHmmss>[-K]`, each under
  /// its path in the clone; the folder, relative to the clone.
  static func keep(
    _ changes: [Change], of step: Step, in workspace: Workspace, now: Date
  ) throws -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyyMMdd-HHmmss"
    let base = ".workshop/saved/\(step.name)-\(formatter.string(from: now))"
    var folder = base
    var count = 1
    while FileManager.default.fileExists(atPath: workspace.url(folder).path) {
      count += 1
      folder = "\(base)-\(count)"
    }
    do {
      for change in changes {
        let target = workspace.url("\(folder)/\(change.path)")
        try FileManager.default.createDirectory(
          at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: workspace.url(change.path), to: target)
      }
    } catch {
      throw RunnerError("Could not keep a copy in \(folder), so nothing was reset: \(error)")
    }
    return folder
  }

  /// `path` for a POSIX shell: in single quotes, so that spaces stay.
  static func quoted(_ path: String) -> String {
    "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
