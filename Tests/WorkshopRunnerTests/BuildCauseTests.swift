import Foundation
import Testing
import workshop

/// Build failures whose cause is not where the compiler's first line points: an error inside a
/// macro's expansion, and the checks of a step that no longer compile against its starter's
/// public API as the attendee changed it.
@Suite("Runner: what caused a build to fail")
struct BuildCauseTests {
  static func failure(_ name: String) throws -> BuildFailure {
    BuildFailure(output: try Fixture.text(name), root: Fixture.capturedRoot)
  }

  @Test("An error inside #Predicate's expansion is shown at the line that uses the macro")
  func predicateExpansion() throws {
    let failure = try Self.failure("macro-predicate")
    #expect(failure.diagnostics.count == 1)
    let error = try #require(failure.diagnostics.first)
    #expect(error.file == "Steps/Step5-ReadWriteScheduler/ScoreBoard.swift")
    #expect((error.line, error.column) == (19, 21))
    #expect(error.message.hasPrefix("cannot convert value of type 'PredicateExpressions.Equal<"))
    #expect(
      error.excerpt.contains("19 |     let predicate = #Predicate<ExamResult> { $0 == result }"))
    #expect(failure.brokenSteps == [Fixture.step5])
    let text = failure.explanation(checking: Fixture.step5)
    #expect(text.hasPrefix("The build failed: your Step 5 does not compile"))
    #expect(
      text.contains(
        "Steps/Step5-ReadWriteScheduler/ScoreBoard.swift:19:21: error: cannot convert value"))
    #expect(text.contains("#Predicate"))
    #expect(!text.contains("no error line"))
  }

  @Test("The same error, as the compiler prints it in its LLVM style, reads the same")
  func predicateExpansionLLVMStyle() throws {
    let swift = try #require(try Self.failure("macro-predicate").diagnostics.first)
    let failure = try Self.failure("macro-predicate-llvm")
    #expect(failure.diagnostics.count == 1)
    #expect(failure.diagnostics.first?.location == swift.location)
    #expect(failure.diagnostics.first?.message == swift.message)
    #expect(failure.folders == ["Steps/Step5-ReadWriteScheduler"])
  }

  @Test("An error inside #expect's expansion is shown at the #expect line")
  func expectExpansion() throws {
    let failure = try Self.failure("macro-expect")
    let error = try #require(failure.diagnostics.first)
    #expect(failure.diagnostics.count == 1)
    #expect(error.location == "Tests/Step5Tests/ScoreTests.swift:7:3")
    #expect(error.message == "'async' call in a function that does not support concurrency")
    #expect(failure.explanation(checking: nil).contains("#expect"))
  }

  @Test("Checks that call an init the attendee isolated: the cause is the step's public API")
  func isolatedInit() throws {
    let failure = try Self.failure("api-nonisolated")
    #expect(failure.folders == ["Tests/Step3Tests"])
    let text = failure.explanation(checking: Fixture.step3)
    #expect(!text.contains("which the steps do not ask you to edit"))
    #expect(text.contains("your Step 3's public API"))
    #expect(text.contains("init()"))
    #expect(text.contains("nonisolated"))
    #expect(text.contains("git diff -- Steps/Step3-GlobalActor"))
    #expect(text.contains("swift run workshop diff 3"))
  }

  @Test("Checks that call a method the attendee renamed: the cause is the step's public API")
  func renamedMethod() throws {
    let failure = try Self.failure("api-renamed")
    #expect(failure.folders == ["Tests/Step3Tests"])
    let text = failure.explanation(checking: Fixture.step3)
    #expect(!text.contains("which the steps do not ask you to edit"))
    #expect(text.contains("your Step 3's public API"))
    #expect(text.contains("rename(to:)"))
    #expect(text.contains("git diff -- Steps/Step3-GlobalActor"))
  }

  @Test("With git: only a starter that differs from the commit is blamed, not the checks")
  func gitDecides() throws {
    let failure = try Self.failure("api-renamed")
    let starter = failure.explanation(
      checking: Fixture.step3, changed: { $0 == Fixture.step3.starter })
    #expect(starter.hasPrefix("The build failed in Tests/Step3Tests, Step 3's checks, which you"))
    #expect(!starter.contains("differs from the commit too"))
    let untouched = failure.explanation(checking: Fixture.step3, changed: { _ in false })
    #expect(untouched.hasPrefix("The build failed in Tests/Step3Tests, which the steps do not ask"))
    let both = failure.explanation(checking: Fixture.step3, changed: { _ in true })
    #expect(both.contains("your Step 3's public API"))
    #expect(both.contains("Tests/Step3Tests differs from the commit too"))
  }

  @Test("Checking another step, or every step, names the step whose API the checks miss")
  func anotherStep() throws {
    let failure = try Self.failure("api-nonisolated")
    let steps = [Fixture.step1, Fixture.step2, Fixture.step3]
    let other = failure.explanation(checking: Fixture.step1, steps: steps)
    #expect(other.hasPrefix("The build failed in Tests/Step3Tests, Step 3's checks (not Step 1's)"))
    #expect(other.contains("`swift test` builds every step"))
    #expect(other.contains("swift run workshop reset 3"))
    let every = failure.explanation(checking: nil, steps: steps)
    #expect(every.contains("your Step 3's public API (Steps/Step3-GlobalActor)"))
    // The note that points at the declaration, in the starter, is shown.
    #expect(every.contains("Steps/Step3-GlobalActor/CoreDataController.swift:12:10: note: calls"))
    // Without the steps, the checks' folder cannot be traced to a starter.
    #expect(failure.explanation(checking: nil).contains("which the steps do not ask you to edit"))
  }

  @Test(
    "The declaration is named from the error's words",
    arguments: [
      ("value of type 'CoreDataController' has no member 'rename'", "CoreDataController.rename"),
      ("cannot find 'EntitySnapshot' in scope", "EntitySnapshot"),
      (
        "call to main actor-isolated initializer 'init(container:)' in a synchronous nonisolated "
          + "context", "init(container:)"
      ),
    ])
  func namesTheDeclaration(message: String, name: String) {
    let output =
      "\(Fixture.capturedRoot)/Tests/Step3Tests/Step3Tests.swift:94:22: error: \(message)"
    let failure = BuildFailure(output: output, root: Fixture.capturedRoot)
    let changes = APIChange.all(in: failure, steps: [Fixture.step3], changed: { _ in nil })
    #expect(changes.map(\.declarations) == [[name]])
    #expect(changes.first?.isIsolated == message.contains("isolated"))
  }
}
