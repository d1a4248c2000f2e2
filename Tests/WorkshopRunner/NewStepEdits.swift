import Foundation
import WorkshopConventions

/// What `new-step` changes in the files that exist: the step in `Package.swift`, its entry in
/// each document that lists the steps (`StepConventions.documentsListingSteps`), its place
/// outside the day's plan and in the homework, its API list, and every count of steps in words.
/// Each edit finds its place by a line it expects, and stops with nothing written when the line
/// has moved.
package struct NewStepEdits {
  package typealias Edit = (String) throws(RunnerError) -> String

  package let step: NewStep
  /// How many steps there were before this one.
  package let stepsBefore: Int

  package init(step: NewStep, stepsBefore: Int) {
    self.step = step
    self.stepsBefore = stepsBefore
  }

  static let guide = "slides/facilitator-guide.md"

  /// The edits, one per file, in the order they are written.
  package func documents(in workspace: Workspace) -> [(String, Edit)] {
    var edits: [(String, [Edit])] = [
      ("Package.swift", [packageEntry]),
      ("README.md", [readmeRow]),
      (Self.guide, [notInTheDay, homework, handsOnRow, guideSection]),
      ("slides/links.md", [linksSection]),
      ("slides/00-introduction.md", [planLine]),
      ("Tests/DocsTests/YouWillNeedTests.swift", [apiEntry]),
    ]
    for path in StepConventions.proseDocuments(under: workspace.root) {
      let recount: Edit = { text throws(RunnerError) in self.recount(text, in: path) }
      if let index = edits.firstIndex(where: { $0.0 == path }) {
        edits[index].1.append(recount)
      } else {
        edits.append((path, [recount]))
      }
    }
    return edits.map { path, steps in
      (
        path,
        { text throws(RunnerError) in
          var text = text
          for edit in steps { text = try edit(text) }
          return text
        }
      )
    }
  }

  // MARK: The edits

  package func packageEntry(_ text: String) throws(RunnerError) -> String {
    try insert(
      "  (\(step.number), \"\(step.folder)\", false, \(step.buildsOn.map(String.init) ?? "nil")),",
      in: text, file: "Package.swift",
      before: { $0 == "]" }, after: { $0.hasPrefix("let steps:") })
  }

  package func readmeRow(_ text: String) throws(RunnerError) -> String {
    try insert(
      "| \(step.number) \(step.title) | `swift test --filter Step\(step.number)` | "
        + "\(StepConventions.noLessonYet): the problem | what you learn | `\(step.deck)` |",
      in: text, file: "README.md", afterLast: { $0.hasPrefix("|") },
      after: { $0 == "## The steps" })
  }

  package func notInTheDay(_ text: String) throws(RunnerError) -> String {
    let prefix = "Not in the day's plan:"
    let entry = "`\(step.deck)` (Step \(step.number), \(step.title.lowercased()))"
    var lines = text.components(separatedBy: "\n")
    if let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) {
      lines[index] =
        String(lines[index].dropLast(lines[index].hasSuffix(".") ? 1 : 0))
        + ", \(entry)."
      return lines.joined(separator: "\n")
    }
    return try insert(
      "\n\(prefix) \(entry).", in: text, file: Self.guide, afterLast: { $0.hasPrefix("|") },
      after: { $0 == "## The timeline" })
  }

  package func homework(_ text: String) throws(RunnerError) -> String {
    var lines = text.components(separatedBy: "\n")
    guard let index = lines.firstIndex(where: { $0.hasPrefix("Homework: ") }),
      let stop = lines[index].firstIndex(of: ".")
    else { throw moved(Self.guide, "a line \"Homework: Steps …\"") }
    let sentence = lines[index][..<stop]
    let numbers =
      sentence.split { !$0.isNumber }.compactMap { Int($0) } + [step.number]
    let listed = numbers.map(String.init)
    let words =
      listed.count == 1
      ? "Step \(listed[0])"
      : "Steps \(listed.dropLast().joined(separator: ", ")) and \(listed[listed.count - 1])"
    lines[index] = "Homework: \(words)" + lines[index][stop...]
    return lines.joined(separator: "\n")
  }

  package func handsOnRow(_ text: String) throws(RunnerError) -> String {
    try insert(
      "| \(step.number) | \(StepConventions.noLessonYet): what the attendee writes | not timed "
        + "yet | 5 |", in: text, file: Self.guide, afterLast: { $0.hasPrefix("|") },
      after: { $0 == "### How long the hands-on takes" })
  }

  package func guideSection(_ text: String) throws(RunnerError) -> String {
    let section = """
      \(step.heading)

      Deck `\(step.deck)`, 11 minutes (4 talk, 5 hands-on, 2 after the exercise).
      Hints: [`Steps/\(step.folder)/HINTS.md`](../Steps/\(step.folder)/HINTS.md).

      \(StepConventions.noLessonYet): `swift run workshop new-step` wrote this section. Say how to \
      present the deck, what the attendees see first, their common mistakes with the checks that \
      catch them, and the wrap-up questions, as the other steps' sections do.

      """
    return try insert(
      section, in: text, file: Self.guide, before: { $0.hasPrefix("## ") },
      after: { $0.hasPrefix("## Step \(step.number - 1) — ") })
  }

  package func planLine(_ text: String) throws(RunnerError) -> String {
    try insert(
      "\(step.number). **\(step.title)**: \(StepConventions.noLessonYet), the problem.", in: text,
      file: "slides/00-introduction.md", afterLast: { $0.first?.isNumber == true },
      after: { $0 == "## The plan of the day" })
  }

  package func linksSection(_ text: String) throws(RunnerError) -> String {
    let section = """
      \(step.heading)

      - \(StepConventions.noLessonYet): the step's links (Apple's documentation, the Swift \
      Evolution proposals, the articles).

      """
    return try insert(
      section, in: text, file: "slides/links.md", before: { $0.hasPrefix("## ") },
      after: { $0.hasPrefix("## Step \(step.number - 1) — ") })
  }

  package func apiEntry(_ text: String) throws(RunnerError) -> String {
    try insert(
      "    \(step.number): [\"perform\", \"count(for:)\", \"FetchRequest\"],", in: text,
      file: "Tests/DocsTests/YouWillNeedTests.swift", before: { $0 == "  ]" },
      after: { $0.contains("static let api: [Int: [String]] = [") })
  }

  /// Every count of the steps in words, one more.
  package func recount(_ text: String, in path: String) -> String {
    var text = text
    let words = StepConventions.numberWords
    let counts = StepConventions.stepCounts(in: text).reversed()
    for (range, number) in counts
    where number == stepsBefore && !StepConventions.countsOtherSteps(String(text[range]), in: path)
      && stepsBefore < words.count
    {
      let old = text[range]
      let word = words[stepsBefore]
      let capitalized =
        old.first?.isUppercase == true ? word.prefix(1).uppercased() + word.dropFirst() : word
      text.replaceSubrange(range, with: capitalized + old.drop { !$0.isWhitespace })
    }
    return text
  }

  // MARK: Finding the place

  /// `line` inserted before the first line after the anchor (`after`) that `before` accepts.
  func insert(
    _ line: String, in text: String, file: String, before: (String) -> Bool,
    after anchor: (String) -> Bool
  ) throws(RunnerError) -> String {
    var lines = text.components(separatedBy: "\n")
    guard let start = lines.firstIndex(where: anchor),
      let index = lines[(start + 1)...].firstIndex(where: before)
    else { throw moved(file, "the place for Step \(step.number)") }
    lines.insert(line, at: index)
    return lines.joined(separator: "\n")
  }

  /// `line` inserted after the last of the lines, after the anchor, that `afterLast` accepts one
  /// after the other (the rows of the first table after the anchor).
  func insert(
    _ line: String, in text: String, file: String, afterLast row: (String) -> Bool,
    after anchor: (String) -> Bool
  ) throws(RunnerError) -> String {
    var lines = text.components(separatedBy: "\n")
    guard let start = lines.firstIndex(where: anchor),
      let first = lines[(start + 1)...].firstIndex(where: row)
    else { throw moved(file, "the table for Step \(step.number)") }
    let end = lines[first...].firstIndex { !row($0) } ?? lines.count
    lines.insert(line, at: end)
    return lines.joined(separator: "\n")
  }

  func moved(_ file: String, _ what: String) -> RunnerError {
    RunnerError(
      "\(file) has moved on from what `new-step` expects: it could not find \(what). Nothing was "
        + "written; add the entry by hand (Tests/ADDING-A-STEP.md), or fix NewStepEdits.swift.")
  }
}
