import Foundation

/// One check's result on one side, read from the scoreboard line the check prints:
/// `[Step1] ✘ yours · class — configure() from many concurrent tasks records no violation`.
package struct CheckResult: Equatable, Sendable {
  /// What may follow the check's name in parentheses.
  package enum Note: Equatable, Sendable {
    case none
    /// `(expected: …)`: verify mode's starter, which must fail.
    case expected(String)
    /// `(known gap: …)`: the check fails on both sides by design.
    case knownGap(String)
    /// `(stretch task, optional: …)`: a stretch task the attendee has not done (yet).
    case stretch(String)
  }

  /// `Step1`.
  package let step: String
  package let passed: Bool
  /// `yours` or `solution`.
  package let side: String
  /// The subject's shape, when the check runs on several: `class`, `actor`, a probe's file name.
  package let shape: String?
  /// The check's name, as its `@Test` is named.
  package let name: String
  package let note: Note

  /// The scoreboard line's side and shape: `yours · class`.
  package var label: String { shape.map { "\(side) · \($0)" } ?? side }

  /// Passes, or fails by design (a known gap a later step closes).
  package var isSettled: Bool {
    if passed { return true }
    switch note {
    case .knownGap, .stretch: return true
    case .none, .expected: return false
    }
  }

  /// The result as the scoreboard prints it, without the step: `✘ yours · class — …`.
  package var text: String {
    let suffix =
      switch note {
      case .none: ""
      case .expected(let text): " (expected: \(text))"
      case .knownGap(let text): " (known gap: \(text))"
      case .stretch(let text): " (stretch task, optional: \(text))"
      }
    return "\(passed ? "✔" : "✘") \(label) — \(name)\(suffix)"
  }

  /// The order of the summary: by name, then yours before the solution, then by shape.
  package static func inSummaryOrder(_ lhs: CheckResult, _ rhs: CheckResult) -> Bool {
    func key(_ result: CheckResult) -> (String, Int, String) {
      (result.name, result.side == "yours" ? 0 : 1, result.shape ?? "")
    }
    return key(lhs) < key(rhs)
  }

  /// A scoreboard line, or nil for any other line of output.
  package init?(line: String) {
    guard line.hasPrefix("["), let close = line.firstIndex(of: "]") else { return nil }
    let step = String(line[line.index(after: line.startIndex)..<close])
    guard step.hasPrefix("Step") else { return nil }
    // The harness prints these marks itself, always plain (`✔`, `✘`); they are read through
    // the same table as Swift Testing's symbols, so that no parser spells a symbol of its own.
    let after = line[line.index(after: close)...]
    guard after.hasPrefix(" "), let mark = SymbolLine(after.dropFirst()),
      [.pass, .fail].contains(mark.symbol)
    else { return nil }
    let passed = mark.symbol == .pass
    let rest = mark.text[...]
    guard let dash = rest.range(of: " — ") else { return nil }
    let label = rest[..<dash.lowerBound].components(separatedBy: " · ")
    guard label.count <= 2, let side = label.first, ["yours", "solution"].contains(side) else {
      return nil
    }
    var name = String(rest[dash.upperBound...])
    var note = Note.none
    if name.hasSuffix(")") {
      for (marker, make) in [
        (" (known gap: ", Note.knownGap), (" (expected: ", Note.expected),
        (" (stretch task, optional: ", Note.stretch),
      ] {
        guard let start = name.range(of: marker, options: .backwards) else { continue }
        note = make(String(name[start.upperBound..<name.index(before: name.endIndex)]))
        name = String(name[..<start.lowerBound])
        break
      }
    }
    self.step = step
    self.passed = passed
    self.side = side
    self.shape = label.count == 2 ? label[1] : nil
    self.name = name
    self.note = note
  }
}
