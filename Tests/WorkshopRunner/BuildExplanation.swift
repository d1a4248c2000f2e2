extension BuildFailure {
  /// What happened and what to do, for a run of `step`'s checks (nil: every step's), followed
  /// by the errors. `steps` are the workshop's steps, so that an error in a step's checks can be
  /// traced to that step's starter; `changed` says whether a path differs from the last commit
  /// (nil: git cannot say), which tells an edit to the checks from an edit to the starter.
  package func explanation(
    checking step: Step?, steps: [Step] = [], changed: (String) -> Bool? = { _ in nil }
  ) -> String {
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
      text.append(Self.everyStep)
      text.append(Self.reset(other))
    }
    var known = steps
    if let step, !known.contains(step) { known.append(step) }
    let changes = APIChange.all(in: self, steps: known, changed: changed)
    for change in changes {
      text += change.explanation(checking: step)
    }
    let elsewhere = folders.filter { folder in
      !broken.contains { folder == $0.starter } && !changes.contains { $0.tests == folder }
    }
    if !elsewhere.isEmpty {
      text.append(
        "The build failed in \(elsewhere.joined(separator: ", ")), which the steps do not ask you "
          + "to edit. `git status` shows what changed there, and `git checkout -- <path>` "
          + "restores it.")
    }
    let macros = Set(diagnostics.compactMap(\.macro)).sorted()
    if !macros.isEmpty {
      text.append(
        "An error is inside the code that \(macros.joined(separator: ", ")) expands to: the "
          + "compiler checks that code, so its words name the macro's own types. The line "
          + "shown is yours, where the macro is used.")
    }
    if diagnostics.isEmpty {
      text.append("The build failed:")
      text +=
        otherErrors.isEmpty ? ["(no error line; run `swift build --build-tests`)"] : otherErrors
    } else {
      text.append("")
      for diagnostic in diagnostics {
        let inside = diagnostic.macro.map { " (inside the expansion of \($0))" } ?? ""
        text.append("\(diagnostic.location): error: \(diagnostic.message)\(inside)")
        text += diagnostic.excerpt
        // A note elsewhere points at what the error is about: the declaration it calls.
        for note in diagnostic.notes where note.file != diagnostic.file {
          text.append("\(note.location): note: \(note.message)")
          text += note.excerpt
        }
      }
    }
    return text.joined(separator: "\n")
  }

  /// Why another step's error stops this one's run.
  static let everyStep =
    "`swift test` builds every step, so a compile error in any step stops every step's run."

  /// How to put `step` back to its starter: the runner's reset first, which keeps a copy.
  static func reset(_ step: Step) -> String {
    "Fix its errors below, or put Step \(step.number) back to its starter (a copy of your "
      + "files is kept):\n    swift run workshop reset \(step.number)\n  or, keeping nothing: "
      + "git checkout -- \(step.starter)"
  }
}
