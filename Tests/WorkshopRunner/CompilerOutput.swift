import Foundation

/// The compiler's diagnostics as `swift build` prints them, read a line at a time.
///
/// A diagnostic's first line is `<where>:<line>:<column>: <kind>: <message>`, where `<where>` is a
/// file, or, for one inside a macro's expansion, the expansion's buffer. The compiler names that
/// buffer two ways: `macro expansion #Predicate` in its default style, which `swift build` uses,
/// and a file `…/swift-generated-sources/@__swiftmacro_….swift` in its LLVM style
/// (`-diagnostic-style llvm`). Either way the attendee's line is only in the notes that follow:
/// `expanded code originates here`, and `in expansion of macro 'Predicate' here`.
enum CompilerOutput {
  /// A diagnostic's first line, read.
  struct Located: Equatable {
    let file: String
    let line: Int
    let column: Int
    /// `error` or `note`.
    let kind: String
    let message: String

    /// Whether `file` is a macro's expansion rather than a file of the repository.
    var isInExpansion: Bool { CompilerOutput.isExpansion(file) }
  }

  /// `/path/File.swift:7:19: error: message`, or a note; nil for any other line. A leading
  /// `` `- `` (a note attached to the line above, in the default style) is left out.
  static func located(_ line: String) -> Located? {
    let text = line.hasPrefix("`- ") ? String(line.dropFirst(3)) : line
    let markers = ["error", "note"].compactMap { kind in
      text.range(of: ": \(kind): ").map { (kind: kind, range: $0) }
    }
    guard let marker = markers.min(by: { $0.range.lowerBound < $1.range.lowerBound }) else {
      return nil
    }
    let location = text[..<marker.range.lowerBound].split(
      separator: ":", omittingEmptySubsequences: false)
    guard location.count >= 3, let row = Int(location[location.count - 2]),
      let column = Int(location[location.count - 1])
    else { return nil }
    let file = location.dropLast(2).joined(separator: ":")
    guard file.hasSuffix(".swift") || isExpansion(file) else { return nil }
    return Located(
      file: file, line: row, column: column, kind: marker.kind,
      message: String(text[marker.range.upperBound...]))
  }

  /// Whether a diagnostic's `<where>` is a macro's expansion buffer, in either style.
  static func isExpansion(_ file: String) -> Bool {
    file.hasPrefix("macro expansion ") || file.contains("@__swiftmacro_")
  }

  /// A line of the source excerpt the compiler prints under a diagnostic (default style):
  /// `7 | let …`, `  | `- …`, the `:` that stands for lines left out, and the frame around a
  /// macro's expansion (`+--- macro expansion #Predicate ---`, `|1 | …`).
  static func isExcerpt(_ line: String) -> Bool {
    let trimmed = line.drop { $0 == " " }
    if trimmed == ":" || trimmed.hasPrefix("+---") { return true }
    let head = line.prefix { $0 != "|" }
    return head.count < line.count && head.allSatisfy { $0 == " " || $0.isNumber }
  }

  /// The macro an expansion buffer belongs to, as the source spells it (`#Predicate`, `@Test`),
  /// when the buffer's name says: the default style names it; the LLVM style's mangled name
  /// only says whether it is freestanding (`fMf`), so `name` comes from the note.
  static func macro(ofBuffer file: String, name: String?) -> String? {
    if file.hasPrefix("macro expansion ") {
      return String(file.dropFirst("macro expansion ".count))
    }
    guard let name else { return nil }
    return (file.contains("fMf") ? "#" : "@") + name
  }

  /// Where an excerpt's `- note: in expansion of macro 'X' here` points, in the file the excerpt
  /// shows: the numbered line above the marker, the marker's column, and X. Markers inside an
  /// expansion's frame (a macro used inside another's expansion) are not the attendee's line.
  static func expansionSite(in excerpt: [String]) -> (line: Int, column: Int, name: String)? {
    let marker = "- note: in expansion of macro '"
    for (index, text) in excerpt.enumerated() {
      guard let note = text.range(of: marker), note.lowerBound > text.startIndex,
        let bar = text.firstIndex(of: "|")
      else { continue }
      // `` `- `` or `|-`: the character before the dash points at the column.
      let pointer = text.index(before: note.lowerBound)
      guard text[..<pointer].filter({ $0 == "|" }).count == 1,
        let row = excerpt[..<index].reversed().lazy.compactMap(lineNumber).first
      else { continue }
      // `19 | code`: the code starts two characters after the bar, at column 1.
      let column = text.distance(from: bar, to: pointer) - 1
      let name = text[note.upperBound...].prefix { $0 != "'" }
      return (row, column, String(name))
    }
    return nil
  }

  /// The line number of an excerpt's source line, `19 | …`.
  private static func lineNumber(_ text: String) -> Int? {
    let head = text.prefix { $0 != "|" }.trimmingCharacters(in: .whitespaces)
    return head.count < text.count ? Int(head) : nil
  }

  /// The names a message quotes, in order: `'CoreDataController'`, `'rename'`.
  static func quoted(_ message: String) -> [String] {
    message.split(separator: "'", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }
}
