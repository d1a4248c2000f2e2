import Foundation

/// A step's hints, one file a level, in `Steps/StepN-…/Hints/`: `1-the-rule.md`, `2-where.md` …,
/// each opening with `# Step N, hint K of M — title`; and `when-a-check-still-fails.md`, for after
/// the last level. One file a level, so that opening one does not show the next.
package struct StepHints: Equatable, Sendable {
  /// One level: `Hint 2 — where` and what it says.
  package struct Level: Equatable, Sendable {
    package let number: Int
    package let title: String
    package let body: String
    /// The file's name, e.g. `2-where.md`.
    package let file: String
  }

  /// The file that follows the last level.
  package static let afterTheLastLevel = "when-a-check-still-fails.md"

  package let levels: [Level]
  /// What `when-a-check-still-fails.md` says, without its title, if the step has it.
  package let whenACheckStillFails: String?

  /// The hints in `files`: a file's name (no folder) and its text.
  package init(files: [String: String]) {
    levels = files.compactMap { name, text in Self.level(named: name, text: text) }
      .sorted { $0.number < $1.number }
    whenACheckStillFails = files[Self.afterTheLastLevel].map { Self.split($0).body }
  }

  /// The hints in the folder at `url`; none when there is no such folder.
  package init(folder url: URL) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
    var files: [String: String] = [:]
    for name in names where name.hasSuffix(".md") {
      files[name] = try? String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
    }
    self.init(files: files)
  }

  /// The level a file holds: its number from the name (`2-where.md`), its title from the first
  /// line after the dash (`# Step 1, hint 2 of 4 — where`).
  private static func level(named name: String, text: String) -> Level? {
    guard name.hasSuffix(".md"), let dash = name.firstIndex(of: "-"),
      let number = Int(name[..<dash])
    else { return nil }
    let (heading, body) = split(text)
    let title = heading.components(separatedBy: " — ").dropFirst().joined(separator: " — ")
    return Level(number: number, title: title, body: body, file: name)
  }

  /// A file's first line, and the rest without the blank lines around it.
  private static func split(_ text: String) -> (heading: String, body: String) {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let heading = lines.isEmpty ? "" : lines.removeFirst()
    let isBlank = { (line: String) in line.trimmingCharacters(in: .whitespaces).isEmpty }
    guard let first = lines.firstIndex(where: { !isBlank($0) }),
      let last = lines.lastIndex(where: { !isBlank($0) })
    else { return (heading, "") }
    return (heading, lines[first...last].joined(separator: "\n"))
  }

  /// What `hint` prints for `level` (1-based): "Hint 2 of 4 — title", the level, and after the
  /// last level what `when-a-check-still-fails.md` says.
  package func text(level: Int, step: Step) -> String {
    let shown = levels[level - 1]
    var text =
      "Hint \(level) of \(levels.count) — \(shown.title)   (\(step.hints)/\(shown.file))\n\n"
      + shown.body
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
