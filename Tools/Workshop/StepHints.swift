import Foundation

/// A step's `HINTS.md`, read: its levels, each a `<details><summary>Hint K — title</summary> …
/// </details>` block, and the section "When a check still fails", for after the last level.
package struct StepHints: Equatable, Sendable {
  /// One level: `Hint 2 — where` and what it says.
  package struct Level: Equatable, Sendable {
    package let number: Int
    package let title: String
    package let body: String
  }

  package let levels: [Level]
  /// The section "When a check still fails", heading included, if the file has one.
  package let whenACheckStillFails: String?

  package init(markdown: String) {
    let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var levels: [Level] = []
    var index = 0
    while index < lines.count {
      let line = lines[index].trimmingCharacters(in: .whitespaces)
      index += 1
      guard line.hasPrefix("<summary>Hint "), line.hasSuffix("</summary>") else { continue }
      let summary = line.dropFirst("<summary>Hint ".count).dropLast("</summary>".count)
      let parts = summary.components(separatedBy: " — ")
      guard let number = Int(parts[0]) else { continue }
      var body: [String] = []
      while index < lines.count, lines[index].trimmingCharacters(in: .whitespaces) != "</details>" {
        body.append(lines[index])
        index += 1
      }
      levels.append(
        Level(
          number: number, title: parts.dropFirst().joined(separator: " — "),
          body: Self.trimmed(body)))
    }
    self.levels = levels
    if let start = lines.firstIndex(of: "## When a check still fails") {
      let section = lines[start...].enumerated().prefix { offset, line in
        offset == 0 || !line.hasPrefix("#")
      }.map(\.element)
      whenACheckStillFails = Self.trimmed(Array(section))
    } else {
      whenACheckStillFails = nil
    }
  }

  /// `lines` joined, without the blank lines around them.
  private static func trimmed(_ lines: [String]) -> String {
    let isBlank = { (line: String) in line.trimmingCharacters(in: .whitespaces).isEmpty }
    guard let first = lines.firstIndex(where: { !isBlank($0) }),
      let last = lines.lastIndex(where: { !isBlank($0) })
    else { return "" }
    return lines[first...last].joined(separator: "\n")
  }

  /// What `hint` prints for `level` (1-based): "Hint 2 of 4 — title", the level, and after the
  /// last level the section "When a check still fails".
  package func text(level: Int, step: Step) -> String {
    let shown = levels[level - 1]
    var text =
      "Hint \(level) of \(levels.count) — \(shown.title)   (\(step.hints))\n\n\(shown.body)"
    if level < levels.count {
      text += "\n\nNext: swift run workshop hint \(step.number) shows Hint \(level + 1) of "
      text += "\(levels.count). The same one again: hint \(step.number) --again."
    } else {
      if let section = whenACheckStillFails { text += "\n\n\(section)" }
      text +=
        "\n\nThat was the last hint. Start over: swift run workshop hint \(step.number) --reset."
    }
    return text
  }
}
