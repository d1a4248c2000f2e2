import Foundation
import Testing
import WorkshopConventions
import WorkshopSupport
import workshop

@Suite("Runner: hints, a level at a time")
struct HintTests {
  static func hints(_ step: Step) -> StepHints {
    StepHints(folder: Repository.url(step.hints))
  }

  @Test("Step 1's hints give their levels in order, a file each, and the file for after")
  func readsTheFirstStepsHints() throws {
    let hints = Self.hints(Fixture.step1)
    #expect(hints.levels.map(\.number) == [1, 2, 3, 4])
    #expect(hints.levels.map(\.title) == ["the rule", "where", "the shape", "the key lines"])
    #expect(
      hints.levels.map(\.file) == [
        "1-the-rule.md", "2-where.md", "3-the-shape.md", "4-the-key-lines.md",
      ])
    #expect(hints.levels[0].body.hasPrefix("A context and its managed objects may only be used"))
    #expect(!hints.levels[0].body.contains("# Step 1, hint"))
    let section = try #require(hints.whenACheckStillFails)
    #expect(section.contains("## When a check still fails\n"))
    #expect(!section.hasPrefix("# Step 1"))
  }

  @Test("A level's file is found by its number, whatever the order of the folder")
  func readsFilesInAnyOrder() {
    let hints = StepHints(files: [
      "2-where.md": "# Step 9, hint 2 of 2 — where\n\nHere.\n",
      "notes.txt": "not a hint",
      "1-the-rule.md": "# Step 9, hint 1 of 2 — the rule — in full\n\n\nThe rule.\n\n",
    ])
    #expect(hints.levels.map(\.number) == [1, 2])
    #expect(hints.levels[0].title == "the rule — in full")
    #expect(hints.levels[0].body == "The rule.")
    #expect(hints.whenACheckStillFails == nil)
  }

  @Test("Every step's hints have levels 1 to N and the file for after the last")
  func readsEveryStep() throws {
    for folder in try Repository.names(in: "Steps", ending: "") {
      guard let step = Step(folder: folder) else { continue }
      let hints = Self.hints(step)
      #expect(
        hints.levels.count >= StepConventions.minimumHintLevels,
        Comment(
          rawValue: StepConventions.failure(
            "\(step.hints): \(hints.levels.count) hint level(s)",
            rule: "a step has at least \(StepConventions.minimumHintLevels) hint levels, one file "
              + "each, `1-….md` to `N-….md`, each opening `# Step N, hint K of N — title`: the "
              + "rule, where, the shape, the key lines.",
            fix: "add the missing levels and renumber the headers (Tests/ADDING-A-STEP.md).")))
      #expect(hints.levels.map(\.number) == Array(1...hints.levels.count), "\(step.hints)")
      #expect(hints.levels.allSatisfy { !$0.title.isEmpty && !$0.body.isEmpty }, "\(step.hints)")
      #expect(hints.whenACheckStillFails != nil, "\(step.hints)")
    }
  }

  @Test("A level says which of how many it is; the last adds the section and says it was last")
  func printsOneLevel() throws {
    let hints = Self.hints(Fixture.step1)
    let second = hints.text(level: 2, step: Fixture.step1)
    #expect(
      second.hasPrefix("Hint 2 of 4 — where   (Steps/Step1-UnsafeController/Hints/2-where.md)"))
    #expect(second.contains(hints.levels[1].body))
    #expect(!second.contains(hints.levels[0].body))
    #expect(!second.contains("## When a check still fails"))
    #expect(second.contains("swift run workshop hint 1 shows Hint 3 of 4"))
    let last = hints.text(level: 4, step: Fixture.step1)
    #expect(last.hasPrefix("Hint 4 of 4 — the key lines"))
    #expect(last.contains(try #require(hints.whenACheckStillFails)))
    #expect(last.contains("That was the last hint."))
  }

  @Test("The level reached goes up one at a time, repeats with --again, and starts over")
  func progress() {
    var progress = HintProgress()
    let step1 = Fixture.step1
    #expect(progress.advance(step1, mode: .again, count: 4) == 1)
    #expect(progress.advance(step1, mode: .next, count: 4) == 2)
    #expect(progress.advance(step1, mode: .again, count: 4) == 2)
    #expect(progress.advance(step1, mode: .next, count: 4) == 3)
    #expect(progress.advance(step1, mode: .next, count: 4) == 4)
    #expect(progress.advance(step1, mode: .next, count: 4) == 4)
    // Each step has its own.
    #expect(progress.advance(Fixture.step2, mode: .next, count: 4) == 1)
    #expect(progress.advance(step1, mode: .reset, count: 4) == nil)
    #expect(progress.reached == ["Step2": 1])
    #expect(progress.advance(step1, mode: .next, count: 4) == 1)
    // A file that now has fewer levels does not point past its last.
    var stale = HintProgress(reached: ["Step1": 9])
    #expect(stale.advance(step1, mode: .again, count: 4) == 4)
  }

  @Test("The level reached is kept in .workshop/hints.json, and read back")
  func keepsProgress() throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("workshop-hints-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let workspace = Workspace(root: root)
    #expect(HintProgress.load(from: workspace) == HintProgress())
    let progress = HintProgress(reached: ["Step1": 2, "Step4": 5])
    try progress.save(to: workspace)
    #expect(HintProgress.url(in: workspace).path.hasSuffix("/.workshop/hints.json"))
    #expect(HintProgress.load(from: workspace) == progress)
  }

  @Test(".workshop/ is git-ignored")
  func progressIsIgnored() throws {
    let ignored = try Repository.read(".gitignore").split(separator: "\n")
    #expect(ignored.contains(".workshop/"))
  }
}
