import Foundation
import Testing
import WorkshopSupport

/// One name per check: the test list, the scoreboard, the decks, the hints, the facilitator
/// guide and the wrong-answer catalogue all say the same words. `exam` enforces it between a
/// `@Test` and its check at run time; these tests hold the documents to it.
@Suite("Docs name the checks as the tests do")
struct CheckNameTests {
  /// Each step's checks, read from its test sources: the names given to `step.check("…")`, and
  /// the probes, whose tests are named `probe <file>: …`.
  static let checks: [String: Set<String>] = {
    let declared = #/check\(\s*"([^"]+)"/#
    let probe = #/@Test\(\s*"(probe [A-Za-z]+: [^"]+)"/#
    var checks: [String: Set<String>] = [:]
    for number in StepFolder.all.map(\.number) {
      let sources = DocsTests.swiftFiles(under: "Tests/Step\(number)Tests")
        .filter { !$0.contains("/Probes/") }.map(DocsTests.read).joined(separator: "\n")
      let names =
        sources.matches(of: declared).map { String($0.output.1) }
        + sources.matches(of: probe).map { String($0.output.1) }
      checks["Step\(number)"] = Set(names)
    }
    return checks
  }()

  static var allChecks: Set<String> { checks.values.reduce(into: []) { $0.formUnion($1) } }

  @Test("Every deck's table of checks lists exactly its step's checks")
  func deckTablesListTheChecks() throws {
    for deck in DocsTests.documents where deck.hasPrefix("slides/0") && !deck.hasPrefix("slides/00")
    {
      let step = "Step\(deck.dropFirst("slides/0".count).prefix(1))"
      // The table may run over several slides, each headed "## What the checks verify…".
      let sections = DocsTests.read(deck).components(separatedBy: "\n## What the checks verify")
        .dropFirst()
      guard !sections.isEmpty else {
        Issue.record("\(deck) has no section 'What the checks verify'")
        continue
      }
      var listed: Set<String> = []
      for section in sections {
        let rows = section.split(separator: "\n").drop { !$0.hasPrefix("|") }
          .prefix { $0.hasPrefix("|") }.dropFirst(2)
        listed.formUnion(
          rows.compactMap { $0.split(separator: "|").first?.trimmingCharacters(in: .whitespaces) })
      }
      let expected = Self.checks[step, default: []]
      let listsTheChecks = listed == expected
      #expect(
        listsTheChecks,
        """
        \(deck): the table under 'What the checks verify' must name \(step)'s checks as the tests \
        do. Missing: \(expected.subtracting(listed).sorted()). Unknown: \
        \(listed.subtracting(expected).sorted())
        """)
    }
  }

  @Test("Every check the wrong-answer catalogue names is a check of its step")
  func catalogueNamesRealChecks() throws {
    let folder = Repository.url("Tests/WrongAnswers")
    var named = 0
    for step in try Repository.names(in: "Tests/WrongAnswers", ending: "")
    where step.hasPrefix("Step") {
      for entry in try FileManager.default.contentsOfDirectory(
        atPath: folder.appending(path: step).path) where entry.hasSuffix(".patch")
      {
        let text = DocsTests.read("Tests/WrongAnswers/\(step)/\(entry)")
        for line in text.split(separator: "\n").prefix(5) where line.hasPrefix("Check: ") {
          named += 1
          let name = String(line.dropFirst("Check: ".count))
          let isACheck = Self.checks[step, default: []].contains(name)
          #expect(
            isACheck,
            "Tests/WrongAnswers/\(step)/\(entry) names '\(name)', which is no check of \(step)")
        }
      }
    }
    #expect(named >= 70, "the catalogue names only \(named) checks")
  }

  /// The first three words of a name, lowercased: a quoted span that starts like a check is meant
  /// as one, so a stale, recased or misspelt name is caught while code and compiler messages are
  /// left alone.
  static func opening(_ text: String) -> String {
    text.split(separator: " ").prefix(3).joined(separator: " ").lowercased()
  }

  /// `markdown` without its fenced code blocks: strings in code are messages, not citations.
  static func prose(of markdown: String) -> String {
    var inCode = false
    return markdown.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
      if Markdown.isFence(line) {
        inCode.toggle()
        return false
      }
      return !inCode
    }.joined(separator: "\n")
  }

  @Test("Every check the docs cite, in backticks or double quotes, is a real check")
  func docsNameRealChecks() throws {
    let quoted = #/[`"“]([^`"“”\n]+)[`"”]/#
    let openings = Set(Self.allChecks.map(Self.opening))
    var cited = 0
    for document in DocsTests.documents {
      for match in Self.prose(of: DocsTests.read(document)).matches(of: quoted) {
        // A scoreboard line may follow the name with its note.
        let name = String(match.output.1.split(separator: " (known gap").first ?? "")
        guard name.split(separator: " ").count >= 4, openings.contains(Self.opening(name))
        else { continue }
        cited += 1
        let isACheck = Self.allChecks.contains(name)
        #expect(isACheck, "\(document) cites \"\(name)\" as a check; no check has that name")
      }
    }
    #expect(cited > 20, "the docs cite only \(cited) checks")
  }
}
