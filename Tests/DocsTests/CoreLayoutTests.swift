import Foundation
import Testing
import WorkshopSupport

/// The core's files sit in folders named in Core Data's terms, and the docs, the checks and CI
/// name them by path. Moving a file breaks those paths without breaking the build, so these checks
/// hold the paths and the map of the core in Tests/FIDELITY.md to the tree.
@Suite("The core's layout and the paths that name it")
struct CoreLayoutTests {
  /// The folders of `Steps/Core`, as names.
  static var coreFolders: [String] {
    let files = Repository.files(under: "Steps/Core").map { $0.dropFirst("Steps/Core/".count) }
    return Set(files.compactMap { $0.split(separator: "/").first.map(String.init) })
      .filter { name in files.contains { $0.hasPrefix(name + "/") } }.sorted()
  }

  /// Every file that may name a core file by path: the docs, the sources, the tests (their
  /// fixtures and ledgers included), CI's scripts and workflows. A file that is not UTF-8 reads as
  /// empty.
  static var namingFiles: [String] {
    ["README.md", "Package.swift", "slides", "Steps", "Solutions", "Tests", ".ci", ".github"]
      .flatMap(Repository.files(under:))
  }

  @Test("Every path to a core file that the docs, the checks or CI name exists")
  func corePathsExist() throws {
    let path = try Regex(#"Steps/Core/[A-Za-z0-9_+/.-]*\.(swift|md)"#)
    var missing: [String] = []
    for file in Self.namingFiles {
      let text = DocsTests.read(file)
      for match in text.matches(of: path) {
        let named = String(text[match.range])
        if !FileManager.default.fileExists(atPath: Repository.url(named).path) {
          missing.append("  \(file) names \(named)")
        }
      }
    }
    #expect(
      missing.isEmpty,
      """
      These paths name core files that are not there (the core's folders are \
      \(Self.coreFolders.joined(separator: ", "))): move the path with the file.
      \(missing.joined(separator: "\n"))
      """)
  }

  @Test("The concurrency document's paths are the core's files, from Steps/Core")
  func concurrencyDocumentPathsExist() {
    let text = DocsTests.read("Steps/Core/CONCURRENCY.md")
    let missing = text.matches(of: /`([A-Za-z0-9_+\/]+\.swift)`/).map { String($0.output.1) }
      .filter { !FileManager.default.fileExists(atPath: Repository.url("Steps/Core/\($0)").path) }
    #expect(
      missing.isEmpty,
      "Steps/Core/CONCURRENCY.md names files that are not under Steps/Core: \(missing)")
  }

  @Test("The map of the core (Tests/FIDELITY.md) names every folder of Steps/Core, and no other")
  func readmeMapsEveryFolder() {
    let readme = DocsTests.read("Tests/FIDELITY.md")
    let entry = #/\n {6}([A-Za-z]+)\/[ ]/#
    let mapped = readme.matches(of: entry).map { String($0.output.1) }.sorted()
    #expect(
      mapped == Self.coreFolders,
      """
      The map of the core in Tests/FIDELITY.md (under "Steps/Core/", one line a folder, indented six \
      spaces) lists \(mapped); Steps/Core has \(Self.coreFolders).
      """)
  }
}
