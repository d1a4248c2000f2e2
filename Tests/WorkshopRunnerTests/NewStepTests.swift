import Foundation
import Testing
import WorkshopConventions
import WorkshopSupport
import workshop

/// `workshop new-step`'s names and edits, on small texts. `.ci/new-step` makes a whole step in a
/// scratch copy and runs every gate on it.
@Suite("Runner: new-step")
struct NewStepTests {
  static let step = try! NewStep(number: 7, name: "BackgroundImporter", buildsOn: 6)
  static let edits = NewStepEdits(step: step, stepsBefore: 6)
  /// The decks' folder, apart: DocsTests reads every `slides/….md` in the tests as a deck that
  /// must exist, and these are the decks of steps that do not.
  static let slides = "slides"

  @Test("A step's names come from its number and its UpperCamelCase name")
  func names() throws {
    let step = Self.step
    #expect(step.folder == "Step7-BackgroundImporter")
    #expect(step.title == "Background importer")
    #expect(try NewStep(number: 7, name: "ObjectIDRefetch").title == "Object ID refetch")
    #expect(try NewStep(number: 7, name: "Step2Again").title == "Step2 again")
    #expect(step.deck == "\(Self.slides)/07-background-importer.md")
    #expect(step.heading == "## Step 7 — Background importer")
    #expect(
      step.fill("Steps/{{folder}}/{{Name}}.swift, {{deck}}#x, {{NN}}")
        == "Steps/Step7-BackgroundImporter/BackgroundImporter.swift, "
        + "\(Self.slides)/07-background-importer.md#x, 07")
    #expect(step.fill("{{importEarlier}}").hasSuffix("import Step6Solution"))
    #expect(try NewStep(number: 7, name: "Importer").fill("{{importEarlier}}") == "")
  }

  @Test("A name that is not UpperCamelCase, or a step that builds on a later one, is refused")
  func refused() {
    for name in ["backgroundImporter", "Background-Importer", "Background Importer", "Ünicode"] {
      #expect(throws: RunnerError.self, "\(name)") { try NewStep(number: 7, name: name) }
    }
    #expect(throws: RunnerError.self) { try NewStep(number: 7, name: "Importer", buildsOn: 7) }
  }

  @Test("The command line: a number, a name, and --builds-on")
  func commandLine() throws {
    #expect(
      try Command(arguments: ["new-step", "7", "Importer", "--builds-on", "6"])
        == .newStep(number: 7, name: "Importer", buildsOn: 6))
    #expect(
      try Command(arguments: ["new-step", "7", "Importer"])
        == .newStep(number: 7, name: "Importer", buildsOn: nil))
    #expect(throws: Command.UsageError.self) { try Command(arguments: ["new-step", "7"]) }
    #expect(throws: Command.UsageError.self) {
      try Command(arguments: ["new-step", "7", "Importer", "--builds-on"])
    }
  }

  @Test("The step joins Package.swift's list and the homework")
  func packageAndHomework() throws {
    let manifest = "let steps: [(Int)] = [\n  (6, \"Step6-ModelActor\", true, nil),\n]\n"
    #expect(
      try Self.edits.packageEntry(manifest)
        == "let steps: [(Int)] = [\n  (6, \"Step6-ModelActor\", true, nil),\n"
        + "  (7, \"Step7-BackgroundImporter\", false, 6),\n]\n")
    #expect(
      try Self.edits.homework("x\nHomework: Steps 2, 3, 5 and 6. Every starter …\n")
        == "x\nHomework: Steps 2, 3, 5, 6 and 7. Every starter …\n")
  }

  @Test("A table gets its row after its last one, separator rows included")
  func tableRow() throws {
    let guide = "## The timeline\n\n| clock | part |\n|---|---|\n| 0:00 | Intro |\n\nAfter.\n"
    let edited = try Self.edits.notInTheDay(guide)
    #expect(
      edited
        == "## The timeline\n\n| clock | part |\n|---|---|\n| 0:00 | Intro |\n\n"
        + "Not in the day's plan: `\(Self.slides)/07-background-importer.md` (Step 7, background "
        + "importer).\n\nAfter.\n")
    // A second step is added to the same line.
    let again = try NewStepEdits(step: NewStep(number: 8, name: "Export"), stepsBefore: 7)
      .notInTheDay(edited)
    #expect(again.contains("importer), `\(Self.slides)/08-export.md` (Step 8, export)."))
  }

  @Test("Every count of the steps in words goes up by one, and nothing else does")
  func recount() {
    let text = "In six steps. Six solutions, six\nstarters, six problems; the three steps of it."
    #expect(
      Self.edits.recount(text, in: "README.md")
        == "In seven steps. Seven solutions, seven\nstarters, six problems; the three steps of it.")
    let phrase = StepConventions.countsOfOtherSteps[0]
    let other = "the \(phrase.phrase)"
    #expect(NewStepEdits(step: Self.step, stepsBefore: 3).recount(other, in: phrase.file) == other)
  }

  @Test("A document that moved on stops the command before anything is written")
  func movedOn() {
    #expect(throws: RunnerError.self) { try Self.edits.packageEntry("no steps here") }
    #expect(throws: RunnerError.self) { try Self.edits.homework("no homework line") }
    #expect(throws: RunnerError.self) { try Self.edits.guideSection("## Step 5 — last\n") }
  }

  @Test("Every file of the template says it holds no lesson yet, so the convention finds it")
  func everyTemplateIsMarked() throws {
    let workspace = Workspace(root: Repository.root)
    let base = Repository.url(NewStep.templates)
    let walker = try #require(
      FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil))
    let templates = walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "template" }
    #expect(templates.count >= 14)
    let unmarked = templates.filter {
      let text = (try? String(contentsOf: $0, encoding: .utf8)) ?? ""
      return !text.contains(StepConventions.noLessonYet)
    }
    #expect(
      unmarked.isEmpty,
      "no \"\(StepConventions.noLessonYet)\" in \(unmarked.map(\.lastPathComponent))")
    // Filled in, no placeholder is left.
    // A number no step has, so that no file of it exists yet.
    let files = try NewStep(number: 99, name: "Importer").files(in: workspace)
    let left = files.filter { $0.0.contains("{{") || $0.1.contains("{{") }.map(\.0)
    #expect(left.isEmpty, "placeholders left in \(left)")
  }
}
