import Foundation
import Testing
import WorkshopSupport

/// The workshop's authority is that it retells two talks truthfully. Every sentence that speaks
/// for a talk cites the talk and the slide, and every cited slide has a row in the ledger
/// (`slides/talk-claims.md`), where it was read against the talk's text. The rule and the
/// citation forms are in `TalkCitation` and the ledger's introduction.
@Suite("Docs cite the talks' slides")
struct TalkCitationTests {
  static let ledger = "slides/talk-claims.md"

  /// Where the workshop speaks: the documents DocsTests reads (but the ledger, which is the
  /// reference), the Swift sources of the steps, the solutions and the tests (but this suite's,
  /// whose examples break the rule on purpose), and the wrong answers' descriptions.
  static let sources: [(path: String, sentences: [TalkCitation.Sentence])] = {
    var sources: [(String, [TalkCitation.Sentence])] = []
    for document in DocsTests.documents where document != ledger {
      sources.append((document, TalkCitation.sentences(markdown: DocsTests.read(document))))
    }
    for folder in ["Steps", "Solutions", "Tests"] {
      for file in DocsTests.swiftFiles(under: folder) where !file.contains("/TalkCitation") {
        sources.append((file, TalkCitation.sentences(swift: DocsTests.read(file))))
      }
    }
    let catalogue = "Tests/WrongAnswers"
    for step in (try? Repository.names(in: catalogue, ending: "")) ?? [] {
      for patch in (try? Repository.names(in: "\(catalogue)/\(step)", ending: ".patch")) ?? [] {
        let path = "\(catalogue)/\(step)/\(patch)"
        sources.append((path, TalkCitation.sentences(patch: DocsTests.read(path))))
      }
    }
    return sources
  }()

  static let rule = """
    Rule: a sentence that speaks for a talk ("the talk", "the 2023 talk", "the talks'", \
    "slide 9", …) cites its talk and slide as (2023 talk, slide 38) or (2024 talk, slides 25–27), \
    and the ledger (slides/talk-claims.md) has a row for every cited slide, read against the \
    talk's text (../shared/seeds/).
    """

  @Test("Every sentence that speaks for a talk cites its slide")
  func sentencesCite() async throws {
    let problems = try await offThePool {
      let rule = TalkCitation()
      return Self.sources.flatMap { source in
        source.sentences.filter { rule.lacksCitation($0.text) }
          .map { "\(source.path):\($0.line): \($0.text)" }
      }
    }
    guard !problems.isEmpty else { return }
    Issue.record(
      Comment(
        rawValue: """
          \(problems.count) sentence(s) speak for a talk without citing it:
          \(problems.joined(separator: "\n"))
          \(Self.rule) Fix: read the slide in the seed and add its citation to the sentence, \
          "(2023 talk, slide N)"; if the talk does not say it, say whose it is (the workshop's, \
          an article's) instead. A phrase that attributes nothing goes on the allowlist in \
          Tests/DocsTests/TalkCitation.swift, with its reason.
          """))
  }

  @Test("Every cited slide has a row in the ledger", arguments: [2023, 2024])
  func citedSlidesAreInTheLedger(_ talk: Int) async throws {
    let rows = TalkCitation.ledgerRows(DocsTests.read(Self.ledger))[talk] ?? []
    let problems = try await offThePool {
      let rule = TalkCitation()
      return Self.sources.flatMap { source in
        source.sentences.flatMap { sentence in
          rule.citations(in: sentence.text).filter { $0.talk == talk }.flatMap { cited in
            let missing = cited.slides.flatMap { $0 }.filter { n in !rows.contains { $0 ~= n } }
            guard !missing.isEmpty else { return [String]() }
            return [
              "\(source.path):\(sentence.line): \(cited.text): no row for \(Self.spans(missing))"
            ]
          }
        }
      }
    }
    guard !problems.isEmpty else { return }
    Issue.record(
      Comment(
        rawValue: """
          \(problems.count) citation(s) of the \(talk) talk name a slide that is in no row of the \
          ledger's "The \(talk) talk" section:
          \(problems.joined(separator: "\n"))
          \(Self.rule) Fix: read the slide in the seed and add its row to slides/talk-claims.md \
          (what it says, what is true today and the source, where the workshop tells it), or \
          correct the citation's slide number.
          """))
  }

  /// Slide numbers as the ledger writes them: "slide 62", "slides 57–66, 70".
  static func spans(_ unsorted: [Int]) -> String {
    let numbers = Set(unsorted).sorted()
    var parts: [String] = []
    var start = numbers[0]
    var end = start
    for n in numbers.dropFirst() + [Int.max] where n != end {
      if n == end + 1 {
        end = n
        continue
      }
      parts.append(start == end ? "\(start)" : "\(start)–\(end)")
      start = n
      end = n
    }
    return (numbers.count == 1 ? "slide " : "slides ") + parts.joined(separator: ", ")
  }

  @Test("The rule finds an uncited mention and reads a citation")
  func ruleCanFail() {
    let deck = """
      ---
      marp: true
      ---

      ## The talk's fix

      The talk keeps the ID and refetches. It works
      (2023 talk, slides 23–28).

      - As the 2023 talk has it, the entity is isolated (2023 talk, slide 38; 2024 talk, slide 7).
      - Slides 16–22 show the actor.

      ```swift
      // The talk's code, left to the file it comes from.
      ```
      """
    let rule = TalkCitation()
    let sentences = TalkCitation.sentences(markdown: deck)
    #expect(sentences.map(\.line) == [7, 7, 10, 11])
    #expect(sentences.filter { rule.lacksCitation($0.text) }.map(\.line) == [7, 11])
    let cited = rule.citations(in: sentences[2].text)
    #expect(cited.map(\.talk) == [2023, 2024])
    #expect(cited.map(\.slides) == [[38...38], [7...7]])
    #expect(rule.citations(in: sentences[1].text).first?.slides == [23...28])
    #expect(Markdown.isFence("```swift from=Tests/X.swift") && Markdown.isFence("```"))
    #expect(!Markdown.isFence("```` ```swift from=<path> ```` in the README is an excerpt"))
    let listed = rule.citations(in: "Errors today (2023 talk, slides 60, 62–63 and 66; probe X).")
    #expect(listed.first?.slides == [60...60, 62...63, 66...66])
    #expect(rule.lacksCitation("The talk says so (probe X; 2023 talk, slide 60)."))
    let swift = "/// The talk's controller\n/// (2023 talk, slides 9–15): a class.\nlet x = 1\n"
    #expect(TalkCitation.sentences(swift: swift).map(\.line) == [1, 3])
    #expect(!rule.lacksCitation(TalkCitation.sentences(swift: swift)[0].text))
    let ledger = "## The 2023 talk\n\n| slides | a |\n|---|---|\n| 9–15 | x |\n| 38 | y |\n"
    #expect(TalkCitation.ledgerRows(ledger)[2023] == [9...15, 38...38])
    #expect(TalkCitation.ledgerRows(ledger)[2024] == nil)
    #expect(Self.spans([57, 58, 59, 62]) == "slides 57–59, 62")
    #expect(Self.spans([62]) == "slide 62")
  }
}
