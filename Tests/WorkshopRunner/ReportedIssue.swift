import Foundation

/// An issue Swift Testing reported, read from its block in the output:
///
///     ✘ Test "configure() …" recorded an issue with 1 argument subject → yours · class at …
///     ↳ Check: configure() from many concurrent tasks records no violation
///       While configure() ran in 20 concurrent tasks, 40 violation(s) were recorded:
///         ×20 Confinement violation: …
///       Rule: …
///
/// Each `↳` starts a section (the issue's comment, then any other); the lines after it, indented
/// by two spaces (three with SF Symbols, `SymbolLine.Spelling`), continue it.
package struct ReportedIssue: Equatable, Sendable {
  /// The `@Test`'s name, which is its check's name.
  package let test: String
  /// The test case's argument as printed, without a leading dot: `yours · class`, `yours`.
  package let argument: String?
  /// A known issue (`━ … recorded a known issue`): a known gap, not a failure.
  package let isKnown: Bool
  /// The sections' lines, without Swift Testing's `↳ ` and indentation.
  package let sections: [[String]]

  /// The side the issue was recorded for, when its argument names one.
  package var side: String? {
    argument?.components(separatedBy: " · ").first
  }

  /// The section a check's helpers wrote, `Check: <name>` and what follows.
  package var lesson: Lesson? {
    sections.lazy.compactMap(Lesson.init(lines:)).first
  }

  /// Every issue block in `lines`, in order.
  package static func all(in lines: [String]) -> [ReportedIssue] {
    var issues: [ReportedIssue] = []
    var index = 0
    while index < lines.count {
      guard let header = Header(lines[index]) else {
        index += 1
        continue
      }
      index += 1
      var sections: [[String]] = []
      // How the section's further lines are indented: as wide as its `↳` line's spelling pads.
      var indent = SymbolLine.Spelling.plain.continuation
      while index < lines.count {
        let line = lines[index]
        if let details = SymbolLine(line), details.symbol == .details {
          sections.append([details.text])
          indent = details.spelling.continuation
        } else if line.hasPrefix(indent), !sections.isEmpty {
          sections[sections.count - 1].append(String(line.dropFirst(indent.count)))
        } else {
          break
        }
        index += 1
      }
      issues.append(
        ReportedIssue(
          test: header.test, argument: header.argument, isKnown: header.isKnown,
          sections: sections))
    }
    return issues
  }

  /// The first line of an issue's block.
  private struct Header {
    let test: String
    let argument: String?
    let isKnown: Bool

    init?(_ line: String) {
      guard let message = SymbolLine(line), message.text.hasPrefix("Test \"") else { return nil }
      let line = message.text
      let isKnown: Bool
      let recorded: Range<String.Index>
      if message.symbol == .fail, let range = line.range(of: "\" recorded an issue") {
        (isKnown, recorded) = (false, range)
      } else if message.symbol == .passWithKnownIssues,
        let range = line.range(of: "\" recorded a known issue")
      {
        (isKnown, recorded) = (true, range)
      } else {
        return nil
      }
      test = String(line[line.index(line.startIndex, offsetBy: 6)..<recorded.lowerBound])
      self.isKnown = isKnown
      // `… with 1 argument subject → yours · class at File.swift:12:3: …`
      let rest = line[recorded.upperBound...]
      if rest.hasPrefix(" with "), let arrow = rest.range(of: " → "),
        let at = rest.range(of: " at ", range: arrow.upperBound..<rest.endIndex)
      {
        let value = rest[arrow.upperBound..<at.lowerBound]
        argument = String(value.hasPrefix(".") ? value.dropFirst() : value)
      } else {
        argument = nil
      }
    }
  }
}

/// What a failing check says: `Check: <name>`, what was observed, then the rule, a hint and
/// the slide to read (`Rule:`, `Hint:`, `Read:`), as the exam's helpers write it.
package struct Lesson: Equatable, Sendable {
  package let check: String
  /// What was observed: an `Observed: …` line or a list of violations, with any lines under it.
  package let observed: [String]
  package let rule: String?
  package let hint: String?
  package let read: String?

  /// The lesson in a section of an issue, or nil when the section is not one.
  package init?(lines: [String]) {
    guard let first = lines.first, first.hasPrefix("Check: ") else { return nil }
    check = String(first.dropFirst("Check: ".count))
    var observed: [String] = []
    var fields: [String: String] = [:]
    var current: String?
    for line in lines.dropFirst() {
      if let field = ["Rule", "Hint", "Read"].first(where: { line.hasPrefix("\($0): ") }) {
        current = field
        fields[field] = String(line.dropFirst(field.count + 2))
      } else if let field = current {
        fields[field, default: ""] += "\n" + line
      } else if observed.isEmpty, line.hasPrefix("Observed: ") {
        observed.append(String(line.dropFirst("Observed: ".count)))
      } else {
        observed.append(line)
      }
    }
    self.observed = observed
    rule = fields["Rule"]
    hint = fields["Hint"]
    read = fields["Read"]
  }
}
