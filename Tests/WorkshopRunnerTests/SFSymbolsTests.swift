import Foundation
import Testing
import workshop

/// On a Mac with SF Pro installed, Swift Testing prints SF Symbols instead of `✔`, `✘`, `◇`:
/// every fixture, respelled that way, must read as it does plain.
@Suite("Runner: Swift Testing's output with SF Symbols")
struct SFSymbolsTests {
  /// Swift Testing 6.3.1's two spellings of each symbol, copied from its source
  /// (`Sources/Testing/Events/Recorder/Event.Symbol.swift`, tag 6.3.1: `_sfSymbolInfo` and
  /// `unicodeCharacter`), kept apart from the runner's `TestingSymbol` so that a wrong code point
  /// there fails here.
  static let swiftTesting: [(plain: Character, sfSymbol: Character)] = [
    ("\u{25C7}", "\u{1007C8}"),  // default: ◇, diamond
    ("\u{279C}", "\u{10065F}"),  // skip: ➜, arrow.triangle.turn.up.right.diamond.fill
    ("\u{2714}", "\u{10105B}"),  // pass: ✔, checkmark.diamond.fill
    ("\u{2501}", "\u{100882}"),  // pass with known issues: ━, minus.diamond.fill
    ("\u{2718}", "\u{100884}"),  // fail: ✘, xmark.diamond.fill
    ("\u{00B1}", "\u{10017A}"),  // difference: ±, plus.forwardslash.minus
    ("\u{26A0}\u{FE0E}", "\u{1001FF}"),  // warning: ⚠︎, exclamationmark.triangle.fill
    ("\u{21B3}", "\u{100135}"),  // details: ↳, arrow.turn.down.right
    ("\u{2399}", "\u{100237}"),  // attachment: ⎙, doc
  ]

  /// The fixtures of `swift test` runs.
  static let runs = [
    "step1-both", "step1-solved", "step1-yours", "step3-solved", "step3-yours", "step4-yours",
    "step5-yours", "crash", "no-match",
  ]

  /// `plain` as Swift Testing prints it with SF Symbols into a pipe, as under `swift test`
  /// (`Event.ConsoleOutputRecorder`): each symbol's SF Symbols character and two spaces, and the
  /// further lines of a `↳` message a space deeper, since it pads them for the wider symbol.
  static func sfSpelling(of plain: String) -> String {
    let table = Dictionary(uniqueKeysWithValues: swiftTesting.map { ($0.plain, $0.sfSymbol) })
    var inDetails = false
    let lines = plain.split(separator: "\n", omittingEmptySubsequences: false).map {
      line -> String in
      if let first = line.first, let symbol = table[first], line.dropFirst().hasPrefix(" ") {
        inDetails = first == "\u{21B3}"
        return "\(symbol) " + line.dropFirst()
      }
      guard inDetails, line.hasPrefix("  ") else {
        inDetails = false
        return String(line)
      }
      return " " + line
    }
    return lines.joined(separator: "\n")
  }

  /// What the runner reads from a run. The tail is left out: it is the last lines as printed.
  struct Reading: Equatable {
    let results: [CheckResult]
    let issues: [ReportedIssue]
    let finished: Bool
    let stopReasons: [String]
    let unfinishedTests: [String]

    init(_ run: TestRunOutput) {
      results = run.results
      issues = run.issues
      finished = run.finished
      stopReasons = run.stopReasons
      unfinishedTests = run.unfinishedTests
    }
  }

  @Test("Each fixture respelled with SF Symbols reads as its plain twin", arguments: runs)
  func fixtureTwins(name: String) throws {
    let plain = try Fixture.text(name)
    let respelled = Self.sfSpelling(of: plain)
    // The twin really is respelled: no line starts with a plain symbol any more.
    #expect(respelled != plain)
    let symbols = Set(Self.swiftTesting.map(\.plain))
    #expect(!respelled.split(separator: "\n").contains { $0.first.map(symbols.contains) == true })
    #expect(Reading(TestRunOutput(output: respelled)) == Reading(TestRunOutput(output: plain)))
  }

  @Test("A step's summary is the same, plain or with SF Symbols")
  func summaryTwins() throws {
    for (name, step) in [
      ("step1-both", Fixture.step1), ("step1-yours", Fixture.step1), ("crash", Fixture.step1),
      ("step3-yours", Fixture.step3), ("step4-yours", Fixture.step4),
      ("step5-yours", Fixture.step5),
    ] {
      let plain = try Fixture.text(name)
      let summaries = try [plain, Self.sfSpelling(of: plain)].map { text in
        Summary(try StepReport(step: step, run: TestRunOutput(output: text)), both: true).text
      }
      #expect(summaries[0] == summaries[1], "\(name)")
    }
  }

  @Test("Every symbol reads the same in both spellings, with one space or two after SF Symbols")
  func everySymbol() {
    #expect(Self.swiftTesting.count == TestingSymbol.allCases.count)
    for (plain, sfSymbol) in Self.swiftTesting {
      let expected = SymbolLine("\(plain) Test \"x\" passed.")
      #expect(expected?.spelling == .plain, "\(plain)")
      #expect(expected?.text == "Test \"x\" passed.", "\(plain)")
      for line in ["\(sfSymbol)  Test \"x\" passed.", "\(sfSymbol) Test \"x\" passed."] {
        let read = SymbolLine(line)
        #expect(read?.symbol == expected?.symbol, "\(plain) as \(line)")
        #expect(read?.spelling == .sfSymbols, "\(plain) as \(line)")
        #expect(read?.text == expected?.text, "\(plain) as \(line)")
      }
    }
    // A line that only looks like one: no space after the symbol, or another character.
    #expect(SymbolLine("✔Test") == nil)
    #expect(SymbolLine("[Step1] ✔ yours — x") == nil)
    #expect(SymbolLine("\u{100000}  Test") == nil)
  }

  @Test("An SF Symbols line in colour, as Swift Testing writes into a pipe, reads as plain")
  func colouredLines() {
    let coloured = [
      "\u{1B}[90m\u{1007C8} \u{1B}[0m Test run started.",
      "\u{1B}[91m\u{100884} \u{1B}[0m Test \"x\" recorded an issue at X.swift:1:2: Issue recorded",
      "\u{1B}[90m\u{100135}  Check: x", "   Observed: y\u{1B}[0m",
      "\u{1B}[91m\u{100884} \u{1B}[0m Test run with 1 test in 0 suites failed after 0.1 seconds.",
    ].joined(separator: "\n")
    let run = TestRunOutput(output: coloured)
    #expect(run.finished)
    #expect(run.issues.map(\.test) == ["x"])
    #expect(run.issues.first?.lesson?.check == "x")
    #expect(run.issues.first?.lesson?.observed == ["y"])
  }
}
