import Foundation

/// The checks a step declares, read from its test sources (`Tests/StepNTests`), and how many
/// results each prints on a side: so that a run that stopped early can count the checks it never
/// got to as not run, instead of summing up only the results it printed.
///
/// The run's output cannot say: a check prints its result when it ends, Swift Testing names a
/// test only once it starts, and the harness's list of every result is printed at exit, which a
/// crashed process never reaches. The sources always can: each check is declared once with
/// `step.check("<name>", …)`, or, for a compile probe, is the `@Test` named `probe <file>: …`
/// (the same two forms DocsTests reads, and holds the decks' tables of checks to). Its `@Test`,
/// named exactly as the check, says how many cases it runs: one per subject of a side
/// (`arguments: Subject.all`; Step 1 has a class and an actor per side), or one per side
/// (`arguments: ExamSide.selected`).
package struct DeclaredChecks: Equatable, Sendable {
  /// One declared check.
  package struct Check: Equatable, Sendable {
    package let name: String
    /// Its `@Test`'s arguments: `Subject.all`, `ExamSide.selected`; nil when no `@Test` of that
    /// name was found or it has no arguments.
    package let arguments: String?
  }

  package let checks: [Check]
  /// How many subjects `Subject.all` has on each side, by side: one for each `.sides("StepN", …)`
  /// (an `ExamSubject` on each side), `Subject(.yours, …)` or `Subject(side: .yours, …)`.
  package let subjects: [String: Int]

  /// The checks declared in `source`, the step's test files put together, in order.
  package init(source: String) {
    var names: [String] = []
    var arguments: [String: String] = [:]
    for (title, rest) in Self.calls(of: "@Test(", in: source) {
      guard let title else { continue }
      if title.hasPrefix("probe "), title.contains(": ") { names.append(title) }
      arguments[title] = rest.isEmpty ? nil : rest
    }
    for (name, _) in Self.calls(of: "check(", in: source) {
      if let name, !names.contains(name) { names.append(name) }
    }
    checks = names.map { Check(name: $0, arguments: arguments[$0]) }
    var subjects: [String: Int] = [:]
    for side in ["yours", "solution"] {
      subjects[side] =
        Self.calls(of: "Subject(", in: source).filter {
          $0.rest.hasPrefix(".\(side)") || $0.rest.hasPrefix("side: .\(side)")
        }.count + Self.calls(of: ".sides(", in: source).count
    }
    self.subjects = subjects
  }

  /// Step `step`'s declared checks, from the `.swift` files of `Tests/StepNTests` (its compile
  /// probes, in `Probes/`, are sources the checks compile, not checks); nil when there are none.
  package static func read(_ step: Step, in workspace: Workspace) -> DeclaredChecks? {
    let folder = workspace.url("Tests/\(step.filter)")
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    else { return nil }
    let files = walker.compactMap { $0 as? URL }.filter {
      $0.pathExtension == "swift" && !$0.pathComponents.contains("Probes")
    }.sorted { $0.path < $1.path }
    let source = files.compactMap { try? String(contentsOf: $0, encoding: .utf8) }
      .joined(separator: "\n")
    let declared = DeclaredChecks(source: source)
    return declared.checks.isEmpty ? nil : declared
  }

  /// How many results `check` prints on `side`: one per subject for `Subject.all`, else one.
  package func cases(of check: Check, on side: String) -> Int {
    guard check.arguments?.contains("Subject.all") == true else { return 1 }
    return max(subjects[side] ?? 1, 1)
  }

  /// Only the check named `name`, when a run is limited to it (`WORKSHOP_CHECK`).
  package func limited(to name: String?) -> DeclaredChecks {
    guard let name else { return self }
    return DeclaredChecks(checks: checks.filter { $0.name == name }, subjects: subjects)
  }

  private init(checks: [Check], subjects: [String: Int]) {
    self.checks = checks
    self.subjects = subjects
  }

  /// Each call `<callee>…)` in `source`: its first argument when that is a string literal, and
  /// the text after it up to the closing parenthesis, without the comma and spaces before it.
  private static func calls(
    of callee: String, in source: String
  ) -> [(first: String?, rest: String)] {
    var calls: [(String?, String)] = []
    var position = source.startIndex
    while let open = source.range(of: callee, range: position..<source.endIndex) {
      position = open.upperBound
      var cursor = open.upperBound
      skipSpaces(in: source, &cursor)
      var first: String?
      if cursor < source.endIndex, source[cursor] == "\"" {
        first = literal(in: source, &cursor)
      }
      let start = cursor
      var depth = 1
      while cursor < source.endIndex {
        let character = source[cursor]
        if character == "\"" {
          _ = literal(in: source, &cursor)
          continue
        }
        if character == "(" { depth += 1 }
        if character == ")" { depth -= 1 }
        if depth == 0 { break }
        cursor = source.index(after: cursor)
      }
      let rest = source[start..<cursor].drop { $0 == "," || $0.isWhitespace }
      calls.append((first, String(rest).trimmingCharacters(in: .whitespacesAndNewlines)))
    }
    return calls
  }

  private static func skipSpaces(in source: String, _ cursor: inout String.Index) {
    while cursor < source.endIndex, source[cursor].isWhitespace {
      cursor = source.index(after: cursor)
    }
  }

  /// The string literal that starts at `cursor` (a `"`), whose end it moves to; its text, with
  /// escapes as written.
  private static func literal(in source: String, _ cursor: inout String.Index) -> String {
    var index = source.index(after: cursor)
    var text = ""
    while index < source.endIndex, source[index] != "\"" {
      if source[index] == "\\", source.index(after: index) < source.endIndex {
        text.append(source[index])
        index = source.index(after: index)
      }
      text.append(source[index])
      index = source.index(after: index)
    }
    cursor = index < source.endIndex ? source.index(after: index) : index
    return text
  }
}
