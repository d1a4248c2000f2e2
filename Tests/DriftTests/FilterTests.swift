import Foundation
import Testing
import WorkshopSupport

/// `swift test --filter StepN` is an unanchored regular expression over test IDs
/// (`Module.Type/function()`), so a type or function named after a step in any other test target
/// would run with that step's checks.
@Suite("Only a step's tests answer to its filter")
struct FilterTests {
  @Test("No type or function outside Tests/StepNTests is named after a step")
  func noStrayStepNames() throws {
    let declaration =
      #/(?:struct|class|enum|actor|extension|func)\s+([A-Za-z_]*Step[0-9][A-Za-z0-9_]*)/#
    var strays: [String] = []
    for folder in try Repository.names(in: "Tests", ending: "")
    where !folder.hasPrefix("Step") && folder != "WrongAnswers" {
      for file in Repository.swiftFiles(under: "Tests/\(folder)") {
        let text = (try? Repository.read(file)) ?? ""
        for match in text.matches(of: declaration) { strays.append("\(file): \(match.output.1)") }
      }
    }
    #expect(
      strays.isEmpty,
      "rename these, or `--filter StepN` runs them too:\n\(strays.joined(separator: "\n"))")
  }
}
