import Foundation

/// A build that failed, read from the compiler's output: which files have errors, and so which
/// step broke the build. `swift test` builds every step, so one step that does not compile
/// stops the checks of all of them.
package struct BuildFailure: Equatable, Sendable {
  /// One compiler error: where, what, and the source excerpt the compiler printed under it.
  package struct Diagnostic: Equatable, Sendable {
    /// The file's path from the repository's root when it is inside it.
    package let file: String
    package let line: Int
    package let column: Int
    package let message: String
    package let excerpt: [String]

    package var location: String { "\(file):\(line):\(column)" }
  }

  /// The compiler errors, each once (the compiler may print one twice: emitting the module and
  /// compiling the file), in order.
  package let diagnostics: [Diagnostic]
  /// The build's other error lines (a linker error, a command that failed), for a build that
  /// failed with no compiler error.
  package let otherErrors: [String]

  package init(output: String, root: String) {
    let lines = TestRunOutput.lines(of: output)
    let prefix = root.hasSuffix("/") ? root : root + "/"
    var diagnostics: [Diagnostic] = []
    var other: [String] = []
    var index = 0
    while index < lines.count {
      let line = lines[index]
      index += 1
      guard let parsed = Self.error(in: line) else {
        if line.hasPrefix("error: "), !Self.isFollowUp(line) { other.append(line) }
        continue
      }
      var excerpt: [String] = []
      while index < lines.count, Self.isExcerpt(lines[index]) {
        excerpt.append(lines[index])
        index += 1
      }
      let file =
        parsed.file.hasPrefix(prefix) ? String(parsed.file.dropFirst(prefix.count)) : parsed.file
      let diagnostic = Diagnostic(
        file: file, line: parsed.line, column: parsed.column, message: parsed.message,
        excerpt: excerpt)
      if !diagnostics.contains(where: {
        $0.location == diagnostic.location && $0.message == diagnostic.message
      }) {
        diagnostics.append(diagnostic)
      }
    }
    self.diagnostics = diagnostics
    otherErrors = other
  }

  /// The folders that hold the errors, in order: `Steps/Step2-ObjectIDRefetch`, `Steps/Core`,
  /// `Tests/Step2Tests`; for a file elsewhere, the file.
  package var folders: [String] {
    var folders: [String] = []
    for diagnostic in diagnostics {
      let parts = diagnostic.file.split(separator: "/")
      let folder =
        parts.count > 2 && ["Steps", "Solutions", "Tests"].contains(String(parts[0]))
        ? "\(parts[0])/\(parts[1])" : diagnostic.file
      if !folders.contains(folder) { folders.append(folder) }
    }
    return folders
  }

  /// The steps whose starters (in `Steps/`) do not compile.
  package var brokenSteps: [Step] {
    folders.compactMap { folder in
      folder.hasPrefix("Steps/") ? Step(folder: String(folder.dropFirst("Steps/".count))) : nil
    }
  }

  /// What happened and what to do, for a run of `step`'s checks (nil: every step's), followed
  /// by the errors.
  package func explanation(checking step: Step?) -> String {
    var text: [String] = []
    let broken = brokenSteps
    let others = broken.filter { $0.number != step?.number }
    if let step, broken.contains(step) {
      text.append("The build failed: your Step \(step.number) does not compile (\(step.starter)).")
      text.append(
        "Fix the errors below; swift run workshop hint \(step.number) helps, a level at a time.")
    }
    for other in others {
      text.append(
        "The build failed in Step \(other.number) (\(other.starter))"
          + (step.map { ", not in Step \($0.number)" } ?? "") + ".")
      text.append(
        "`swift test` builds every step, so a compile error in any step stops every step's run.")
      text.append(
        "Fix its errors below, or put Step \(other.number) back to its starter (this discards "
          + "your changes there):\n    git checkout -- \(other.starter)\n  or: swift run workshop reset \(other.number)"
      )
    }
    let elsewhere = folders.filter { folder in !broken.contains { folder == $0.starter } }
    if !elsewhere.isEmpty {
      text.append(
        "The build failed in \(elsewhere.joined(separator: ", ")), which the steps do not ask you "
          + "to edit. `git status` shows what changed there, and `git checkout -- <path>` "
          + "restores it.")
    }
    if diagnostics.isEmpty {
      text.append("The build failed:")
      text +=
        otherErrors.isEmpty ? ["(no error line; run `swift build --build-tests`)"] : otherErrors
    } else {
      text.append("")
      for diagnostic in diagnostics {
        text.append("\(diagnostic.location): error: \(diagnostic.message)")
        text += diagnostic.excerpt
      }
    }
    return text.joined(separator: "\n")
  }

  /// `/path/File.swift:7:19: error: message`.
  private static func error(
    in line: String
  ) -> (file: String, line: Int, column: Int, message: String)? {
    guard let marker = line.range(of: ": error: ") else { return nil }
    let location = line[..<marker.lowerBound].split(
      separator: ":", omittingEmptySubsequences: false)
    guard location.count >= 3, location[location.count - 3].hasSuffix(".swift"),
      let row = Int(location[location.count - 2]), let column = Int(location[location.count - 1])
    else { return nil }
    return (
      location.dropLast(2).joined(separator: ":"), row, column,
      String(line[marker.upperBound...])
    )
  }

  /// A line of the source excerpt the compiler prints under an error: `7 | let …`, `  | `- …`.
  private static func isExcerpt(_ line: String) -> Bool {
    let head = line.prefix { $0 != "|" }
    return head.count < line.count && head.allSatisfy { $0 == " " || $0.isNumber }
  }

  /// The lines that only repeat that something failed: the compiler's own error says why.
  private static func isFollowUp(_ line: String) -> Bool {
    line == "error: fatalError" || line.contains("command failed with exit code")
  }
}
