/// A step's checks that no longer compile because the attendee changed the public API of the
/// step's starter: dropped `nonisolated` from an `init` of a type they isolated (a pitfall the
/// deck names), renamed or removed a method the checks call, changed its parameters.
///
/// The compiler reports such an error in `Tests/StepNTests`, where the call is, so the folder
/// alone would blame the checks, which attendees do not edit. The cause is the starter when git
/// says it differs from the commit and the checks do not; without git, when the error names a
/// declaration (`has no member 'rename'`, `… isolated initializer 'init()' …`) or a note points
/// into the starter.
package struct APIChange: Equatable, Sendable {
  package let step: Step
  /// The checks' folder the errors are in: `Tests/Step3Tests`.
  package let tests: String
  /// The declarations the errors name, as the compiler quotes them: `init()`, `rename(to:)`,
  /// `CoreDataController.rename`.
  package let declarations: [String]
  /// Whether a declaration is isolated to an actor now, which the checks, calling it from
  /// outside without await, cannot call.
  package let isIsolated: Bool
  /// Whether git says the checks' folder differs from the commit too.
  package let testsChanged: Bool

  /// The API changes behind `failure`'s errors in the steps' checks.
  package static func all(
    in failure: BuildFailure, steps: [Step], changed: (String) -> Bool?
  ) -> [APIChange] {
    failure.folders.compactMap { folder -> APIChange? in
      guard let step = steps.first(where: { "Tests/\($0.filter)" == folder }) else { return nil }
      let errors = failure.diagnostics.filter { $0.file.hasPrefix(folder + "/") }
      let testsChanged = changed(folder) == true
      let namesTheStarter = errors.contains { error in
        error.notes.contains { $0.file.hasPrefix(step.starter + "/") }
          || apiMessages.contains { error.message.contains($0) }
      }
      // git knows best; without it, what the errors say.
      let starterChanged = changed(step.starter) ?? namesTheStarter
      guard starterChanged, !testsChanged || namesTheStarter else { return nil }
      var declarations: [String] = []
      for name in errors.compactMap(declaration(in:)) where !declarations.contains(name) {
        declarations.append(name)
      }
      return APIChange(
        step: step, tests: folder, declarations: declarations,
        isIsolated: errors.contains { isIsolation($0.message) }, testsChanged: testsChanged)
    }
  }

  /// What the attendee reads, for a run of `step`'s checks (nil: every step's).
  package func explanation(checking checked: Step?) -> [String] {
    let number = step.number
    let notChecked = checked.flatMap { $0 == step ? nil : " (not Step \($0.number)'s)" } ?? ""
    var text = [
      "The build failed in \(tests), Step \(number)'s checks\(notChecked), which you do not edit: "
        + "the cause is your Step \(number)'s public API (\(step.starter)), which they call."
    ]
    var why =
      declarations.isEmpty
      ? "The checks call the starter's types and methods as it declares them"
      : "The checks call \(declarations.joined(separator: ", ")) as the starter declares "
        + (declarations.count > 1 ? "them" : "it")
    if isIsolated {
      why +=
        ", from outside any actor and without await; yours is isolated to an actor now, so "
        + "that call does not compile. Keep it callable from outside, as the starter's is: "
        + "declare it `nonisolated`."
    } else {
      why += "; yours no longer matches (renamed, removed, or with other parameters)."
    }
    text.append(why)
    text.append(
      "Compare yours with the starter: git diff -- \(step.starter)\n  and with the solution: "
        + "swift run workshop diff \(number)")
    if let checked, checked != step { text += [BuildFailure.everyStep, BuildFailure.reset(step)] }
    if testsChanged {
      text.append(
        "\(tests) differs from the commit too: `git status -- \(tests)` shows what changed, and "
          + "`git checkout -- \(tests)` restores it.")
    }
    return text
  }

  /// Messages about a declaration the checks use: it is gone, renamed, isolated, or takes other
  /// arguments.
  static let apiMessages = [
    "has no member '", "cannot find '", "does not conform to protocol '", "isolated initializer",
    "isolated instance method", "isolated static method", "isolated property",
    "nonisolated context", "argument label", "missing argument", "extra argument",
    "no exact matches in call", "is inaccessible due to",
  ]

  /// Whether `message` says a call crosses into an actor's isolation: `call to global actor
  /// 'CoreDataActor'-isolated initializer 'init()' in a synchronous nonisolated context`.
  static func isIsolation(_ message: String) -> Bool {
    message.contains("-isolated ") && message.contains("nonisolated context")
  }

  /// The declaration an error is about, from its words: a protocol's requirement the starter's
  /// type no longer meets, a member the type no longer has, the isolated callee, a name out of
  /// scope.
  static func declaration(in error: BuildFailure.Diagnostic) -> String? {
    let texts = [error.message] + error.excerpt + error.notes.map(\.message)
    for text in texts {
      guard let range = text.range(of: "protocol requires ") else { continue }
      if let name = CompilerOutput.quoted(String(text[range.upperBound...])).first { return name }
    }
    let quoted = CompilerOutput.quoted(error.message)
    if error.message.contains(" has no member "), quoted.count >= 2 {
      return "\(quoted[quoted.count - 2]).\(quoted[quoted.count - 1])"
    }
    if isIsolation(error.message) || error.message.hasPrefix("cannot find '") {
      return error.message.hasPrefix("cannot find '") ? quoted.first : quoted.last
    }
    return error.notes.first { !CompilerOutput.quoted($0.message).isEmpty }
      .flatMap { CompilerOutput.quoted($0.message).first }
  }
}
