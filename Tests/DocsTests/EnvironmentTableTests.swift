import Foundation
import Testing
import WorkshopEnvironment
import WorkshopSupport

/// One list of the `WORKSHOP_*` variables: `WorkshopEnvironment` reads them, the maintainers'
/// table says what each does, and nothing else reads or names another.
@Suite("Docs list the workshop's environment variables")
struct EnvironmentTableTests {
  /// The document whose table lists the variables: a maintainer's, not an attendee's.
  static let document = "Tests/MAINTAINING.md"

  @Test("Tests/MAINTAINING.md's table gives every variable, as WorkshopEnvironment says it")
  func maintainersTable() {
    let rows = DocsTests.read(Self.document).split(separator: "\n").filter {
      $0.hasPrefix("| `WORKSHOP_")
    }
    let expected = WorkshopEnvironment.all.map {
      "| `\($0.name)=\($0.example)` | \($0.meaning) |"
    }
    #expect(
      rows.map(String.init) == expected,
      """
      \(Self.document)'s table of environment variables must be, in this order:
      \(expected.joined(separator: "\n"))
      Rule: every WORKSHOP_* variable is read in Tests/WorkshopEnvironment and described once.
      """)
  }

  @Test("No source reads a WORKSHOP_ variable but WorkshopEnvironment, and no doc names another")
  func oneReader() {
    let known = Set(WorkshopEnvironment.all.map(\.name))
    let name = #/WORKSHOP_[A-Z_]+/#
    var problems: [String] = []
    for file in ["Steps", "Solutions", "Tests"].flatMap(DocsTests.swiftFiles(under:))
    where !file.hasPrefix("Tests/WorkshopEnvironment/") {
      let text = DocsTests.read(file)
      if text.contains("environment[\"WORKSHOP_") {
        problems.append("\(file) reads a WORKSHOP_ variable itself: use WorkshopEnvironment")
      }
      for match in text.matches(of: name) where !known.contains(String(match.output)) {
        problems.append("\(file) names \(match.output), which WorkshopEnvironment does not know")
      }
    }
    // Every CI script, including ones added later.
    let scripts = ((try? Repository.names(in: ".ci", ending: "")) ?? []).map { ".ci/\($0)" }
    #expect(scripts.contains(".ci/run"), "no CI scripts found in .ci/")
    for document in DocsTests.documents + scripts {
      for match in DocsTests.read(document).matches(of: name)
      where !known.contains(String(match.output)) {
        problems.append(
          "\(document) names \(match.output), which WorkshopEnvironment does not know")
      }
    }
    #expect(problems.isEmpty, Comment(rawValue: problems.joined(separator: "\n")))
  }
}
