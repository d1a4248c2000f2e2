import Foundation
import Testing

/// The README and the slides show the repository's code, and failure messages point to slide
/// anchors that exist. Both drift silently unless something checks them.
@Suite("Docs show the repository's code")
struct DocsTests {
  /// The repository's root, found from this file's path.
  static let root: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
    {
      url.deleteLastPathComponent()
    }
    return url
  }()

  static func files(under folder: String, ending suffix: String) -> [URL] {
    let base = root.appendingPathComponent(folder)
    guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
    else { return [] }
    return walker.compactMap { $0 as? URL }.filter { $0.lastPathComponent.hasSuffix(suffix) }
      .sorted { $0.path < $1.path }
  }

  static func read(_ url: URL) -> String {
    (try? String(contentsOf: url, encoding: .utf8)) ?? ""
  }

  static func relative(_ url: URL) -> String {
    String(url.path.dropFirst(root.path.count + 1))
  }

  /// The documents whose Swift code blocks must be repository code.
  static let documents: [URL] =
    [root.appendingPathComponent("README.md")] + files(under: "slides", ending: ".md")

  /// Every line of Swift in the repository, trimmed.
  static let repositoryLines: Set<String> = {
    var lines: Set<String> = []
    for folder in ["Steps", "Solutions", "Tests"] {
      for file in files(under: folder, ending: ".swift") {
        for line in read(file).split(separator: "\n") {
          lines.insert(line.trimmingCharacters(in: .whitespaces))
        }
      }
    }
    return lines
  }()

  /// The lines inside ```swift blocks of `markdown`, with their line numbers.
  static func swiftBlockLines(_ markdown: String) -> [(number: Int, text: String)] {
    var inSwift = false
    var result: [(Int, String)] = []
    for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.hasPrefix("```") {
        inSwift = !inSwift && trimmed == "```swift"
        continue
      }
      if inSwift { result.append((index + 1, trimmed)) }
    }
    return result
  }

  @Test("Every line of Swift in the README and the slides is in the repository")
  func codeBlocksAreRepositoryCode() {
    for document in Self.documents {
      let missing = Self.swiftBlockLines(Self.read(document)).filter { line in
        !line.text.isEmpty && line.text != "// …" && !Self.repositoryLines.contains(line.text)
      }
      #expect(
        missing.isEmpty,
        """
        \(Self.relative(document)) shows code that is not in the repository (copy it from the \
        file it comes from; mark an omission with a line `// …`):
        \(missing.map { "  line \($0.number): \($0.text)" }.joined(separator: "\n"))
        """)
    }
  }

  /// GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens.
  static func anchor(_ heading: String) -> String {
    String(
      heading.lowercased().compactMap { character -> Character? in
        if character == " " { return "-" }
        if character.isLetter || character.isNumber || character == "-" || character == "_" {
          return character
        }
        return nil
      })
  }

  @Test("Every slide a failure message points to exists, with its anchor")
  func slideReferencesResolve() throws {
    let pattern = try Regex(#"slides/([A-Za-z0-9_-]+\.md)(#[a-z0-9_-]+)?"#)
    var references: Set<String> = []
    for file in Self.files(under: "Tests", ending: ".swift") {
      for match in Self.read(file).matches(of: pattern) {
        references.insert(String(Self.read(file)[match.range]))
      }
    }
    for reference in references.sorted() {
      let parts = reference.split(separator: "#", maxSplits: 1).map(String.init)
      let deck = Self.root.appendingPathComponent(parts[0])
      let exists = FileManager.default.fileExists(atPath: deck.path)
      #expect(exists, "\(reference): \(parts[0]) does not exist")
      guard exists, parts.count == 2 else { continue }
      let anchors = Self.read(deck).split(separator: "\n")
        .filter { $0.hasPrefix("#") }
        .map { Self.anchor($0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) }
      #expect(
        anchors.contains(parts[1]),
        "\(reference): no heading in \(parts[0]) has the anchor #\(parts[1])")
    }
  }
}
