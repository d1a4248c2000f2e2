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
    /// The macro whose expansion holds the error (`#Predicate`, `#expect`, `@Test`), when the
    /// compiler found it in the code the macro expands to. `file`, `line` and `column` are then
    /// where the macro is used, the attendee's line, since the expansion is no file of theirs.
    package var macro: String? = nil
    /// The notes printed after the error, each with its own location: where the declaration
    /// the error is about is, for one.
    package var notes: [Note] = []

    package var location: String { "\(file):\(line):\(column)" }
  }

  /// A note the compiler printed after an error, with the excerpt under it.
  package struct Note: Equatable, Sendable {
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
    func relative(_ file: String) -> String {
      file.hasPrefix(prefix) ? String(file.dropFirst(prefix.count)) : file
    }
    var diagnostics: [Diagnostic] = []
    var other: [String] = []
    var index = 0
    while index < lines.count {
      let line = lines[index]
      index += 1
      guard let error = CompilerOutput.located(line), error.kind == "error",
        !line.hasPrefix("`- ")
      else {
        if line.hasPrefix("error: "), !Self.isFollowUp(line) { other.append(line) }
        continue
      }
      var diagnostic: Diagnostic
      if error.isInExpansion {
        diagnostic = Self.expansionError(error, lines: lines, index: &index)
      } else {
        diagnostic = Diagnostic(
          file: error.file, line: error.line, column: error.column, message: error.message,
          excerpt: Self.excerpt(lines, &index))
      }
      diagnostic = Diagnostic(
        file: relative(diagnostic.file), line: diagnostic.line, column: diagnostic.column,
        message: diagnostic.message, excerpt: diagnostic.excerpt, macro: diagnostic.macro,
        notes: Self.notes(lines, &index).map {
          Note(
            file: relative($0.file), line: $0.line, column: $0.column, message: $0.message,
            excerpt: $0.excerpt)
        })
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
    for diagnostic in diagnostics where !CompilerOutput.isExpansion(diagnostic.file) {
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

  /// An error inside a macro's expansion, placed at the line that uses the macro: from the
  /// excerpt's `in expansion of macro` marker and the `expanded code originates here` note
  /// (default style), or from the `in expansion of macro` note that follows (LLVM style).
  private static func expansionError(
    _ error: CompilerOutput.Located, lines: [String], index: inout Int
  ) -> Diagnostic {
    var origin: CompilerOutput.Located?
    if index < lines.count, lines[index].hasPrefix("`- "),
      let note = CompilerOutput.located(lines[index]), note.kind == "note"
    {
      origin = note
      index += 1
    }
    let excerpt = Self.excerpt(lines, &index)
    if let origin, !origin.isInExpansion {
      let site = CompilerOutput.expansionSite(in: excerpt)
      return Diagnostic(
        file: origin.file, line: site?.line ?? origin.line, column: site?.column ?? origin.column,
        message: error.message, excerpt: excerpt,
        macro: CompilerOutput.macro(ofBuffer: error.file, name: site?.name))
    }
    // LLVM style: the expanded line and a caret line, then the note, then the attendee's line
    // and its caret line.
    var look = index
    while look < lines.count, look < index + 8 {
      let text = lines[look]
      look += 1
      guard let note = CompilerOutput.located(text) else { continue }
      guard note.kind == "note", !note.isInExpansion,
        note.message.hasPrefix("in expansion of macro '")
      else { break }
      let name = CompilerOutput.quoted(note.message).first
      let shown = lines[look..<min(look + 2, lines.count)].prefix {
        CompilerOutput.located($0) == nil && !$0.isEmpty
      }
      index = look + shown.count
      return Diagnostic(
        file: note.file, line: note.line, column: note.column, message: error.message,
        excerpt: Array(shown), macro: CompilerOutput.macro(ofBuffer: error.file, name: name))
    }
    return Diagnostic(
      file: error.file, line: error.line, column: error.column, message: error.message,
      excerpt: excerpt, macro: CompilerOutput.macro(ofBuffer: error.file, name: nil))
  }

  /// The excerpt lines from `index` on, which it moves past.
  private static func excerpt(_ lines: [String], _ index: inout Int) -> [String] {
    var excerpt: [String] = []
    while index < lines.count, CompilerOutput.isExcerpt(lines[index]) {
      excerpt.append(lines[index])
      index += 1
    }
    return excerpt
  }

  /// The notes that follow an error, each with its excerpt, past the blank lines between them.
  private static func notes(_ lines: [String], _ index: inout Int) -> [Note] {
    var notes: [Note] = []
    var look = index
    while look < lines.count {
      if lines[look].isEmpty {
        look += 1
        continue
      }
      guard let note = CompilerOutput.located(lines[look]), note.kind == "note" else { break }
      look += 1
      notes.append(
        Note(
          file: note.file, line: note.line, column: note.column, message: note.message,
          excerpt: excerpt(lines, &look)))
      index = look
    }
    return notes
  }

  /// The lines that only repeat that something failed: the compiler's own error says why.
  private static func isFollowUp(_ line: String) -> Bool {
    line == "error: fatalError" || line.contains("command failed with exit code")
  }
}
