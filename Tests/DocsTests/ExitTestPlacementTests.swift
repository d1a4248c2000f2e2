import Testing
import WorkshopConventions
import WorkshopSupport

/// Every exit test in the tests runs off the cooperative pool.
///
/// Swift Testing's parent side of an exit test blocks threads while its child lives: on the
/// cooperative pool (two threads on a 2-core machine) one exit test stops every other check of
/// the run, and their bounded waits run out on correct code. Nothing shows it but a loaded run.
@Suite("Exit tests run off the cooperative pool")
struct ExitTestPlacementTests {
  @Test("Every #expect(processExitsWith:) is wrapped in withExitTestOffThePool")
  func everyExitTestIsOffThePool() {
    var problems: [String] = []
    for file in DocsTests.swiftFiles(under: "Tests") {
      let lines = DocsTests.read(file).split(separator: "\n", omittingEmptySubsequences: false)
      for (index, line) in lines.enumerated() {
        let code = line.trimmingPrefix(while: \.isWhitespace)
        guard code.contains(#/^(?:(?:let|var)\s+\w+\s*=\s*)?await\s+#expect\(/#) else { continue }
        let opening = lines[index...].prefix(3).joined(separator: " ")
        guard opening.contains(#/#expect\(\s*processExitsWith:/#) else { continue }
        let above = lines[..<index].last { !$0.allSatisfy(\.isWhitespace) } ?? ""
        if !above.hasSuffix("withExitTestOffThePool {") {
          problems.append("\(file):\(index + 1): \(code)")
        }
      }
    }
    StepConventionTests.report(
      problems,
      rule: "an exit test's parent reads its child's output with blocking reads; on the "
        + "cooperative pool they stop every other check of the run while the child lives.",
      fix: "wrap the call: `await withExitTestOffThePool { await #expect(processExitsWith: …) "
        + "{ … } }` (Tests/WorkshopSupport/OffThePoolExecutor.swift).")
  }
}
