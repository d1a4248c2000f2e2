import Foundation
import Testing
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
    let words = StepConventions.numberWords.joined(separator: "|")
    let phrase = try! Regex("(?i)\\b(\(words)) (steps|starters|solutions|step decks)\\b")
    var problems: [String] = []
    for document in DocsTests.documents {
      for (index, line) in DocsTests.read(document).split(
        separator: "\n", omittingEmptySubsequences: false
      ).enumerated() {
        for match in line.matches(of: phrase) {
          let text = String(line[match.range])
          let number = StepConventions.numberWords.firstIndex(
            of: text.lowercased().prefix {
              $0 != " "
            }.description
          ).map { $0 + 1 }
          let other = StepConventions.countsOfOtherSteps.contains {
            $0.file == document && $0.phrase == text.lowercased()
          }
          if number != count, !other {
            problems.append("\(document):\(index + 1): \"\(text)\"; there are \(count) steps")
          }
        }
      }
    }
    Self.report(
      problems,
      rule: "a document that counts the steps in words counts the folders in Steps/ "
        + "(StepFolder.all).",
      fix: "write the number there is, or say it without a count (\"every step\"); a phrase that "
        + "counts something else goes in `StepConventions.countsOfOtherSteps`, with its reason.")
  }
}
