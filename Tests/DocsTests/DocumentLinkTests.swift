import Foundation
import Testing
import WorkshopSupport

/// Links between the documents resolve: a Markdown link names a file that exists and, with an
/// anchor, a heading it has; a path with an anchor written in prose or in a Swift comment
/// (`Tests/FIDELITY.md#escape-hatches`) does too. Material moves between the README and the
/// documents under `Tests/`, and a link left behind breaks without a word.
@Suite("Docs link to documents and headings that exist")
struct DocumentLinkTests {
  /// The anchors of a Markdown document's headings, as GitHub makes them.
  static func anchors(of path: String) -> Set<String> {
    Set(
      DocsTests.read(path).split(separator: "\n")
        .filter { $0.hasPrefix("#") }
        .map { DocsTests.anchor($0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) })
  }

  /// `target` (a path from the repository's root, or empty for `document` itself) with `anchor`,
  /// linked from `document`: nil when it resolves, else what is wrong.
  static func problem(linking target: String, anchor: String?, from document: String) -> String? {
    let path = target.isEmpty ? document : target
    guard FileManager.default.fileExists(atPath: Repository.url(path).path) else {
      return "\(document) links to \(path), which does not exist"
    }
    guard let anchor, path.hasSuffix(".md") else { return nil }
    guard anchors(of: path).contains(anchor) else {
      return "\(document) links to \(path)#\(anchor), but no heading of \(path) has that anchor"
    }
    return nil
  }

  /// `relative`, a link's path written in `document`, as a path from the repository's root.
  static func resolve(_ relative: String, from document: String) -> String {
    guard !relative.isEmpty else { return "" }
    var parts = document.split(separator: "/").dropLast().map(String.init)
    for part in relative.split(separator: "/").map(String.init) {
      switch part {
      case ".": continue
      case "..": if !parts.isEmpty { parts.removeLast() }
      default: parts.append(part)
      }
    }
    return parts.joined(separator: "/")
  }

  @Test("Every Markdown link of a document names a file, and a heading, that exist")
  func markdownLinksResolve() throws {
    let link = try Regex(#"\]\(([^()\s]*)\)"#)
    var links = 0
    var problems: [String] = []
    for document in DocsTests.documents {
      for match in DocsTests.read(document).matches(of: link) {
        let target = String(match.output[1].substring ?? "")
        // `…` stands for a link in prose about links, as the ledger writes one.
        guard !target.contains("://"), !target.hasPrefix("mailto:"), target != "…" else {
          continue
        }
        links += 1
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let path = Self.resolve(String(parts[0]), from: document)
        let anchor = parts.count == 2 ? String(parts[1]) : nil
        if let problem = Self.problem(linking: path, anchor: anchor, from: document) {
          problems.append(problem)
        }
      }
    }
    #expect(links > 10, "found only \(links) links between documents: the check checks little")
    #expect(problems.isEmpty, Comment(rawValue: problems.joined(separator: "\n")))
  }

  @Test("Every document path with an anchor, in prose or in Swift, names a heading that exists")
  func anchoredPathsResolve() throws {
    // Slide references are `DocsTests.slideReferencesResolve`'s; these are the other documents.
    // A path that starts the text or follows a character no path has (`../README.md#…` is a
    // Markdown link's, checked above from where it is written).
    let reference = try Regex(
      #"(?:^|[^A-Za-z0-9_./-])(README\.md|Tests/[A-Za-z0-9_/+-]+\.md)#([a-z0-9_-]+)"#)
    var found = 0
    var problems: [String] = []
    for file in DocsTests.swiftFiles(under: "Tests") + DocsTests.swiftFiles(under: "Steps")
      + DocsTests.documents
    {
      for match in DocsTests.read(file).matches(of: reference) {
        found += 1
        let path = String(match.output[1].substring ?? "")
        let anchor = String(match.output[2].substring ?? "")
        if let problem = Self.problem(linking: path, anchor: anchor, from: file) {
          problems.append(problem)
        }
      }
    }
    #expect(found > 0, "no document names another with an anchor: the check checks nothing")
    #expect(problems.isEmpty, Comment(rawValue: problems.joined(separator: "\n")))
  }
}
