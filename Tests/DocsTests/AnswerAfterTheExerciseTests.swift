import Foundation
import Testing
import WorkshopSupport

/// The answer reaches the attendee after the problem does: no starter's `// TODO:`, no first hint,
/// no failure's `Hint:` and no slide before "Your turn" holds a line of code that the step's
/// solution adds to its starter. Those lines are the exercise; the last hint and the slides after
/// "Your turn" may show them.
@Suite("Docs hold the answer back until after the exercise")
struct AnswerAfterTheExerciseTests {
  typealias Step = StepFolder

  /// Every line of code a solution file has and its starter's file of the same name has not,
  /// trimmed, with runs of spaces made one. Comments, braces and short lines (`return x`, a
  /// lone `try`) say nothing of the answer and are left out.
  static func addedLines(_ step: Step) -> Set<String> {
    var added: Set<String> = []
    let names = (try? Repository.names(in: step.solution, ending: ".swift")) ?? []
    for name in names {
      let starterLines = Set(codeLines(DocsTests.read("\(step.starter)/\(name)")))
      for line in codeLines(DocsTests.read("\(step.solution)/\(name)"))
      where !starterLines.contains(line) && line.count >= 12 {
        added.insert(line)
      }
    }
    return added
  }

  static func codeLines(_ text: String) -> [String] {
    text.split(separator: "\n").map { normalized(String($0)) }
      .filter { !$0.isEmpty && !$0.hasPrefix("//") }
  }

  static let steps = StepFolder.all

  /// Runs of whitespace made one space, ends trimmed: line breaks and indentation do not hide a
  /// line.
  static func normalized(_ text: String) -> String {
    text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  /// The solution's lines that `text` shows, as `where: line` descriptions.
  static func shown(_ added: Set<String>, in text: String, where place: String) -> [String] {
    let flat = normalized(text)
    return added.filter { flat.contains($0) }.sorted().map { "  \(place): \($0)" }
  }

  static func report(_ found: [String], _ step: Step, what: String, fix: String) {
    guard !found.isEmpty else { return }
    Issue.record(
      Comment(
        rawValue: """
          \(step.module): \(what) hands over \(found.count) line(s) that \
          \(step.solution) adds to the starter:
          \(found.joined(separator: "\n"))
          Rule: the exercise comes before the answer; the code is for the last hint and for the \
          slides after "Your turn". Fix: \(fix)
          """))
  }

  @Test("No starter's TODO holds a line of the solution", arguments: steps)
  func todosSayWhereAndWhat(_ step: Step) {
    let added = Self.addedLines(step)
    var found: [String] = []
    for name in (try? Repository.names(in: step.starter, ending: ".swift")) ?? [] {
      let lines = DocsTests.read("\(step.starter)/\(name)").split(
        separator: "\n", omittingEmptySubsequences: false)
      for (index, line) in lines.enumerated()
      where line.trimmingCharacters(in: .whitespaces).hasPrefix("// TODO:") {
        let comment = lines[index...].prefix {
          $0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
        }.map { $0.trimmingCharacters(in: .whitespaces).dropFirst(2) }.joined(separator: " ")
        found += Self.shown(added, in: comment, where: "\(name):\(index + 1)")
      }
    }
    Self.report(
      found, step, what: "a `// TODO:`",
      fix: "say where and what in words (the type, the method, the rule), never the code.")
  }

  @Test("No first hint holds a line of the solution", arguments: steps)
  func firstHintIsTheRule(_ step: Step) {
    let folder = "\(step.starter)/Hints"
    let first = ((try? Repository.names(in: folder, ending: ".md")) ?? []).filter {
      $0.hasPrefix("1-")
    }
    #expect(first.count == 1, "\(folder) should have one first level, 1-….md; found \(first)")
    for name in first {
      Self.report(
        Self.shown(Self.addedLines(step), in: DocsTests.read("\(folder)/\(name)"), where: name),
        step,
        what: "\(folder)/\(name)",
        fix: "give the rule and where to look; the code is the last level.")
    }
  }

  /// The text of every `hint:` argument in a step's checks: string literals, joined by `+`.
  static func failureHints(of step: Step) -> [(place: String, text: String)] {
    let argument = #/hint:\s*((?:"(?:[^"\\]|\\.)*"\s*(?:\+\s*)?)+)/#
    let literal = #/"((?:[^"\\]|\\.)*)"/#
    var hints: [(String, String)] = []
    for file in DocsTests.swiftFiles(under: "Tests/Step\(step.number)Tests")
    where !file.contains("/Probes/") {
      let source = DocsTests.read(file)
      for match in source.matches(of: argument) {
        let text = match.output.1.matches(of: literal).map { String($0.output.1) }.joined()
        let line = source[..<match.range.lowerBound].filter { $0 == "\n" }.count + 1
        hints.append(("\(file):\(line)", text.replacingOccurrences(of: "\\\"", with: "\"")))
      }
    }
    return hints
  }

  @Test("No failure's Hint: holds a line of the solution", arguments: steps)
  func failureHintsPointToTheHints(_ step: Step) {
    let added = Self.addedLines(step)
    let hints = Self.failureHints(of: step)
    #expect(!hints.isEmpty, "found no `hint:` in Tests/Step\(step.number)Tests")
    let found = hints.flatMap { Self.shown(added, in: $0.text, where: $0.place) }
    Self.report(
      found, step, what: "a failure's `Hint:`",
      fix: "give the first level's nudge; `swift run workshop hint N` has the rest.")
  }

  @Test("No slide before the last \"Your turn\" holds a line of the solution", arguments: steps)
  func slidesBeforeYourTurn(_ step: Step) throws {
    let deck = try ReadBeforeYourTurnTests.Deck(step)
    let added = Self.addedLines(step)
    var found: [String] = []
    for (index, line) in deck.lines[..<deck.turn].enumerated() {
      found += Self.shown(added, in: String(line), where: "\(deck.path):\(index + 1)")
    }
    Self.report(
      found, step, what: "\(deck.path) before the last \"Your turn\"",
      fix: "move the fix, the before/after and the walk-through after \"Your turn\".")
  }
}
