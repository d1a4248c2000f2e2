import Foundation
import Testing
import WorkshopConventions
import WorkshopSupport

/// Every step keeps the conventions in `StepConventions`, and the documents count the steps
/// that exist. A convention's failure names the rule and the fix, because the one who meets it is
/// a maintainer adding a step.
@Suite("Every step keeps the step conventions")
struct StepConventionTests {
  static func report(_ problems: [String], rule: String, fix: String) {
    guard !problems.isEmpty else { return }
    Issue.record(
      Comment(
        rawValue: StepConventions.failure(
          problems.joined(separator: "\n"), rule: rule, fix: fix)))
  }

  @Test("Every step has the minimum of checks")
  func minimumChecks() {
    let short = CheckNameTests.checks.sorted { $0.key < $1.key }.filter {
      $0.value.count < StepConventions.minimumChecks
    }
    Self.report(
      short.map {
        "\($0.key): \($0.value.count) check(s) in Tests/\($0.key)Tests: \($0.value.sorted())"
      },
      rule: "a step has at least \(StepConventions.minimumChecks) checks: its lesson from several "
        + "sides, guards against plausible wrong answers, and the stretch task.",
      fix: "declare each as `static let … = step.check(\"…\", …)` with a `@Test` of the same name "
        + "(Tests/ADDING-A-STEP.md).")
  }

  @Test("Every step has a catalogue of wrong answers")
  func wrongAnswers() {
    let short = StepFolder.all.compactMap { step -> String? in
      let folder = "Tests/WrongAnswers/\(step.module)"
      let count = Repository.files(under: folder).filter { $0.hasSuffix(".patch") }.count
      return count < StepConventions.minimumWrongAnswers
        ? "\(step.module): \(count) wrong answer(s) in \(folder)" : nil
    }
    Self.report(
      short,
      rule: "a step's checks are measured against plausible wrong answers: at least "
        + "\(StepConventions.minimumWrongAnswers) in its catalogue, which `.ci/wrong-answers` "
        + "applies to the solution.",
      fix: "add each mistake as a patch to the solution, with the check that must catch it "
        + "(Tests/WrongAnswers/README.md).")
  }

  @Test("Every step has a stretch task: a check and a slide")
  func stretchTask() throws {
    try #require(StepConventions.stretchTaskRequired)
    var problems: [String] = []
    for step in StepFolder.all {
      let sources = DocsTests.swiftFiles(under: "Tests/Step\(step.number)Tests")
        .map(DocsTests.read).joined(separator: "\n")
      if sources.firstMatch(of: #/step\.check\(\s*"[^"]+",\s*\.stretch\)/#) == nil {
        problems.append(
          "\(step.module): no check marked `.stretch` in Tests/Step\(step.number)Tests")
      }
      let deck = try ReadBeforeYourTurnTests.Deck(step)
      if deck.index(of: ReadBeforeYourTurnTests.stretchTask) == nil {
        problems.append("\(step.module): \(deck.path) has no slide \"## Stretch task\"")
      }
    }
    Self.report(
      problems,
      rule: "every step has a stretch task for whoever finishes early: a check marked `.stretch` "
        + "whose stub in the starter calls `StretchTask.notStarted()`, and a slide \"## Stretch "
        + "task\" after \"Your turn\" that states it.",
      fix: "add both (Tests/ADDING-A-STEP.md), or set `stretchTaskRequired` to false for every "
        + "step.")
  }

  @Test("The documents count the steps there are")
  func stepCountsInProse() {
    let count = StepFolder.all.count
    var problems: [String] = []
    for document in DocsTests.documents {
      // One search per document: the pattern is compiled on each call.
      let text = DocsTests.read(document)
      for (range, number) in StepConventions.stepCounts(in: text)
      where number != count && !StepConventions.countsOtherSteps(String(text[range]), in: document)
      {
        let line = text[..<range.lowerBound].count { $0 == "\n" } + 1
        let phrase = text[range].split { $0.isWhitespace }.joined(separator: " ")
        problems.append("\(document):\(line): \"\(phrase)\"; there are \(count) steps")
      }
    }
    Self.report(
      problems,
      rule: "a document that counts the steps in words counts the folders in Steps/ "
        + "(StepFolder.all).",
      fix: "write the number there is, or say it without a count (\"every step\"); a phrase that "
        + "counts something else goes in `StepConventions.countsOfOtherSteps`, with its reason. "
        + "`swift run workshop new-step` rewrites the counts when it adds a step.")
  }

  @Test("The documents that list the steps list every step")
  func documentsListEveryStep() {
    var problems: [String] = []
    for (path, entry) in StepConventions.documentsListingSteps {
      let text = DocsTests.read(path)
      for step in StepFolder.all {
        guard let deck = step.deck else {
          problems.append("\(step.module): no deck in slides/ whose name starts with its number")
          continue
        }
        if !StepConventions.lists(step: step.number, deck: deck, in: text, of: path) {
          problems.append("\(path) has no entry for Step \(step.number): \(entry)")
        }
      }
    }
    Self.report(
      problems,
      rule: "every step is in each document that lists the steps "
        + "(`StepConventions.documentsListingSteps`).",
      fix: "add the step's entry there; `swift run workshop new-step` writes one in each.")
  }

  @Test("Every step has its lesson: nothing is left of the new-step template")
  func everyStepHasItsLesson() {
    var problems: [String] = []
    for step in StepFolder.all {
      var files = [step.starter, step.solution, "Tests/\(step.module)Tests"].flatMap {
        Repository.files(under: $0)
      }
      files += [step.deck, "Tests/WrongAnswers/\(step.module)"].compactMap { $0 }.flatMap {
        Repository.files(under: $0)
      }
      var left = files.filter { DocsTests.read($0).contains(StepConventions.noLessonYet) }
      // Its entries in the documents that list the steps: the line that names the step (a table
      // row, an item of the plan), or the lines of its section.
      for (path, _) in StepConventions.documentsListingSteps {
        let sections = DocsTests.read(path).components(separatedBy: "\n## ")
        let own = sections.filter { $0.hasPrefix("Step \(step.number) — ") }
        let rows = DocsTests.read(path).split(separator: "\n").filter {
          $0.hasPrefix("| \(step.number) ") || $0.hasPrefix("\(step.number). **")
        }
        if (own + rows.map(String.init)).contains(where: {
          $0.contains(StepConventions.noLessonYet)
        }) {
          left.append(path)
        }
      }
      if !left.isEmpty {
        problems.append(
          "\(step.module) has no lesson yet: \(left.count) file(s) still hold the template "
            + "that `swift run workshop new-step` wrote (\"\(StepConventions.noLessonYet)\"):\n  "
            + left.joined(separator: "\n  "))
      }
    }
    Self.report(
      problems,
      rule: "a step teaches its own lesson: the placeholder lesson of Tests/NewStepTemplate "
        + "(every access inside perform, an Item per name) only shows the shape.",
      fix: "write the step's code, checks, hints and deck in those files (Tests/ADDING-A-STEP.md), "
        + "and delete each \"\(StepConventions.noLessonYet)\" comment as its file is done.")
  }

  @Test("No step copies an earlier step's file without a reason")
  func noCopiesOfEarlierSteps() {
    var earlier: [String: String] = [:]  // a file's text: where it was first
    var copies: [String] = []
    for step in StepFolder.all {
      var own: [String: String] = [:]
      // The solution's first: a step that builds on an earlier one imports its solution.
      for file in DocsTests.swiftFiles(under: step.solution)
        + DocsTests.swiftFiles(under: step.starter)
      {
        let text = DocsTests.read(file)
        if let first = earlier[text] {
          copies.append("\(file) is a copy of \(first)")
        } else if own[text] == nil {
          own[text] = file
        }
      }
      earlier.merge(own) { first, _ in first }
    }
    let listed = Set(StepConventions.copiesOfEarlierSteps.map(\.file))
    Self.report(
      copies.filter { !listed.contains(String($0.prefix { $0 != " " })) },
      rule: "a step uses an earlier step's code as it is by importing that step's solution "
        + "(`buildsOn` in Package.swift's `steps`, `--builds-on` of `swift run workshop new-step`), "
        + "not by a copy: a fix to it must have one home.",
      fix: "delete the copy and import the earlier solution; or, when the copy must stay, list it "
        + "in `StepConventions.copiesOfEarlierSteps` with the reason.")
    let stale = listed.filter { file in !copies.contains { $0.hasPrefix(file + " ") } }
    Self.report(
      stale.sorted().map { "\($0) is listed as a copy, and is not one" },
      rule: "`StepConventions.copiesOfEarlierSteps` lists only the copies there are.",
      fix: "remove the entry.")
  }
}
