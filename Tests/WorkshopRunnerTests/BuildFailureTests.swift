import Foundation
import Testing
import workshop

@Suite("Runner: a build that failed")
struct BuildFailureTests {
  static func failure() throws -> BuildFailure {
    BuildFailure(output: try Fixture.text("build-failure"), root: Fixture.capturedRoot)
  }

  @Test("Each compiler error is read once, with its file from the root and its excerpt")
  func readsErrors() throws {
    let failure = try Self.failure()
    #expect(failure.diagnostics.count == 1)
    let error = try #require(failure.diagnostics.first)
    #expect(error.file == "Steps/Step2-ObjectIDRefetch/CoreDataEntity.swift")
    #expect((error.line, error.column) == (7, 19))
    #expect(error.message == "cannot convert value of type 'String' to specified type 'Int'")
    #expect(error.excerpt.count == 5)
    #expect(error.excerpt[2] == "7 | let broken: Int = \"nope\"")
  }

  @Test("An error in another step's files names that step and how to reset it")
  func anotherStepBrokeTheBuild() throws {
    let failure = try Self.failure()
    #expect(failure.brokenSteps == [Fixture.step2])
    let text = failure.explanation(checking: Fixture.step1)
    #expect(
      text.hasPrefix("The build failed in Step 2 (Steps/Step2-ObjectIDRefetch), not in Step 1."))
    #expect(text.contains("git checkout -- Steps/Step2-ObjectIDRefetch"))
    #expect(text.contains("swift run workshop reset 2"))
    #expect(
      text.contains("Steps/Step2-ObjectIDRefetch/CoreDataEntity.swift:7:19: error: cannot convert"))
  }

  @Test("An error in the step being checked says so, and does not suggest a reset")
  func thisStepDoesNotCompile() throws {
    let text = try Self.failure().explanation(checking: Fixture.step2)
    #expect(text.hasPrefix("The build failed: your Step 2 does not compile"))
    #expect(!text.contains("git checkout"))
  }

  @Test("An error outside the steps names where it is")
  func errorOutsideTheSteps() throws {
    let output = try Fixture.text("build-failure").replacingOccurrences(
      of: "Steps/Step2-ObjectIDRefetch/CoreDataEntity.swift",
      with: "Steps/Core/ManagedObjects/ManagedObject.swift"
    )
    let failure = BuildFailure(output: output, root: Fixture.capturedRoot)
    #expect(failure.brokenSteps.isEmpty)
    #expect(failure.folders == ["Steps/Core"])
    #expect(
      failure.explanation(checking: Fixture.step1).hasPrefix("The build failed in Steps/Core"))
  }

  @Test("A failure with no compiler error shows the build's own error lines")
  func otherErrors() {
    let failure = BuildFailure(
      output: "[5/7] Linking workshop\nerror: link command failed with exit code 1\n"
        + "error: undefined reference to 'main'\n", root: Fixture.capturedRoot)
    #expect(failure.diagnostics.isEmpty)
    #expect(failure.otherErrors == ["error: undefined reference to 'main'"])
    #expect(failure.explanation(checking: nil).contains("error: undefined reference to 'main'"))
  }
}
