/// A symbol Swift Testing puts at the start of a line of its console output, by what it means.
///
/// Swift Testing spells each symbol one of two ways (`Event.Symbol`, in swift-testing's
/// `Sources/Testing/Events/Recorder/Event.Symbol.swift`): a plain Unicode character, `✔`, or, on
/// a Mac with the SF Pro font installed, an SF Symbols character from Unicode's private use area,
/// which only that font draws. The runner asks `swift test` for the plain spelling
/// (`SWT_SF_SYMBOLS_ENABLED=0`) and reads both, so that output captured any other way (a Mac's
/// terminal, a pasted log) reads the same.
package enum TestingSymbol: CaseIterable, Sendable {
  /// `◇`: a run, a suite or a test started; the run's opening lines.
  case `default`
  /// `➜`: skipped, or cancelled.
  case skip
  /// `✔`: passed. The scoreboard's own lines use it too.
  case pass
  /// `━`: passed with known issues, or recorded a known issue.
  case passWithKnownIssues
  /// `✘`: failed, or recorded an issue. The scoreboard's own lines use it too.
  case fail
  /// `±`: the difference an expectation found.
  case difference
  /// `⚠︎`: a warning.
  case warning
  /// `↳`: details of the line above: an issue's comment, the library's version.
  case details
  /// `⎙`: an attachment.
  case attachment

  /// The plain spelling: `unicodeCharacter` (on Linux and on Apple platforms).
  package var plain: Character {
    switch self {
    case .default: "\u{25C7}"
    case .skip: "\u{279C}"
    case .pass: "\u{2714}"
    case .passWithKnownIssues: "\u{2501}"
    case .fail: "\u{2718}"
    case .difference: "\u{00B1}"
    // WARNING SIGN and VARIATION SELECTOR-15 (text, not emoji): one Character.
    case .warning: "\u{26A0}\u{FE0E}"
    case .details: "\u{21B3}"
    case .attachment: "\u{2399}"
    }
  }

  /// The SF Symbols spelling: `sfSymbolCharacter`, the symbol's character in SF Pro's private
  /// use area, as Swift Testing 6.3 has them (6.2 had others for a known issue).
  package var sfSymbol: Character {
    switch self {
    case .default: "\u{1007C8}"  // diamond
    case .skip: "\u{10065F}"  // arrow.triangle.turn.up.right.diamond.fill
    case .pass: "\u{10105B}"  // checkmark.diamond.fill
    case .passWithKnownIssues: "\u{100882}"  // minus.diamond.fill
    case .fail: "\u{100884}"  // xmark.diamond.fill
    case .difference: "\u{10017A}"  // plus.forwardslash.minus
    case .warning: "\u{1001FF}"  // exclamationmark.triangle.fill
    case .details: "\u{100135}"  // arrow.turn.down.right
    case .attachment: "\u{100237}"  // doc
    }
  }
}

/// A line of Swift Testing's output that starts with a symbol, in either spelling: the symbol,
/// and the message after it.
package struct SymbolLine: Equatable, Sendable {
  /// How the line spells its symbol.
  package enum Spelling: Equatable, Sendable {
    /// `✔ Test …`: the symbol, one space, the message.
    case plain
    /// The SF Symbols character, then two spaces when the output is a terminal or a pipe (one
    /// to give the wide glyph room, one before the message), else one.
    case sfSymbols

    /// How Swift Testing indents the further lines of a message, an issue's comment for one: a
    /// space wider with SF Symbols, as it pads for the wider symbol.
    package var continuation: String {
      switch self {
      case .plain: "  "
      case .sfSymbols: "   "
      }
    }
  }

  package let symbol: TestingSymbol
  package let spelling: Spelling
  /// The message: what follows the symbol and the spaces after it.
  package let text: String

  /// The line's symbol and message, or nil for a line that does not start with a symbol.
  package init?(_ line: some StringProtocol) {
    guard let first = line.first else { return nil }
    var rest = line.dropFirst()
    if let symbol = TestingSymbol.allCases.first(where: { $0.plain == first }) {
      (self.symbol, spelling) = (symbol, .plain)
    } else if let symbol = TestingSymbol.allCases.first(where: { $0.sfSymbol == first }) {
      (self.symbol, spelling) = (symbol, .sfSymbols)
      if rest.hasPrefix("  ") { rest = rest.dropFirst() }
    } else {
      return nil
    }
    guard rest.hasPrefix(" ") else { return nil }
    text = String(rest.dropFirst())
  }
}
