import Foundation
import Testing
import WorkshopSupport

/// Every slide fits one 16:9 slide of Marp's default theme, read at the back of a room. The
/// limits, and the theme's numbers they come from, are in `SlideFit`; the facilitator guide
/// explains them.
@Suite("Slides fit a 16:9 screen")
struct SlideFitTests {
  /// The decks: Markdown files under `slides/` whose front matter says `marp: true`.
  static let decks: [String] = DocsTests.documents.filter {
    $0.hasPrefix("slides/") && DocsTests.read($0).hasPrefix("---\nmarp: true")
  }

  @Test("Every deck's slides fit the screen", arguments: decks)
  func slidesFit(_ deck: String) {
    var problems: [String] = []
    for slide in SlideFit.slides(in: DocsTests.read(deck)) {
      let (height, wide) = SlideFit.measure(slide)
      let place = "\(deck):\(slide.line) \(slide.title)"
      if height > SlideFit.budget {
        problems.append(
          "\(place): fills \(String(format: "%.1f", height)) lines of code's height; a slide "
            + "holds \(SlideFit.budget)")
      }
      for line in wide {
        problems.append(
          "\(place): a code line of \(line.count) columns (at most \(SlideFit.codeColumns)): \(line)"
        )
      }
    }
    #expect(
      problems.isEmpty,
      Comment(
        rawValue: """
          \(problems.count) slide problem(s):
          \(problems.joined(separator: "\n"))
          Rule: a slide is one 16:9 screen of Marp's default theme; what does not fit is cut off \
          or shrunk past reading (limits and their sources: Tests/DocsTests/SlideFit.swift, and \
          the facilitator guide's "Presenting"). Fix: split the slide, or move detail into the \
          presenter notes (an HTML comment).
          """))
  }

  @Test("The estimate counts what a slide shows")
  func estimate() {
    let deck = """
      ---
      marp: true
      ---

      # Title

      <!-- A note, not on the slide.
      Two lines long. -->

      ---

      ## Code

      ```swift
      \(String(repeating: "x", count: 74))
      ```
      """
    let slides = SlideFit.slides(in: deck)
    #expect(slides.map(\.title) == ["# Title", "## Code"])
    #expect(slides.map(\.line) == [5, 12])
    #expect(slides[0].lines.allSatisfy { !$0.contains("note") })
    let (height, wide) = SlideFit.measure(slides[1])
    #expect(wide.count == 1)
    #expect(height > 3 && height < 6)
    let full = SlideFit.Slide(
      line: 1, title: "## Full",
      lines: ["## Full", "```text"] + Array(repeating: "x", count: 18) + ["```"])
    #expect(SlideFit.measure(full).height > SlideFit.budget)
    // A wide column and a narrow one: the wide one gets most of the width, so a row of 70
    // characters stays one line high.
    let row = "| \(String(repeating: "x", count: 70)) | ok |"
    let table = SlideFit.Slide(
      line: 1, title: "", lines: ["| check | ok |", "|---|---|", row, row])
    let tableHeight = SlideFit.measure(table).height
    #expect(tableHeight > 5 && tableHeight < 6.5, "three one-line rows; measured \(tableHeight)")
  }

  /// The two slides the estimate is calibrated against (see `SlideFit`), as they were when Marp
  /// drew them past the content area: deck 01's by 15 px (578 px), deck 04's by 1 px (564 px).
  /// The estimate must find both too full, and be no more than a line of text off.
  @Test("The estimate finds too full the two slides Marp drew past the content area")
  func calibration() {
    let compilerSaysNow = """
      ## What the compiler says now

      Old `perform` blocks escaped but were not `@Sendable`. The iOS 26 / macOS 26 SDK marks the context `NS_SWIFT_SENDABLE`, the managed object `NS_SWIFT_NONSENDABLE`, and makes every `perform` block `@Sendable`. The core does the same:

      ```swift from=Steps/Core/Contexts/ManagedObjectContext.swift
      public func perform(_ block: @escaping @Sendable () -> Void) {
      // …
      public func perform<Result, Failure: Error>(
        schedule: ScheduledTaskType = .immediate,
        _ block: @escaping @Sendable () throws(Failure) -> Result
      ) async throws(Failure) -> Result {
      ```

      - A `@Sendable` block captures only Sendable things: the context, IDs, values; not an actor's state, not a managed object.
      """
    let synchronousOnTheActor = """
      ## Synchronous on the actor

      ```swift from=Steps/Step4-CustomExecutor/CoreDataContext.swift
      @CoreDataActor
      public final class CoreDataContext {
        private let moc: ManagedObjectContext
        // …
        public func save() throws {
          try moc.save()
        }
      ```

      From another actor, every call is an `await` (the check's visitor):

      ```swift from=Tests/Step4Tests/Subjects.swift
      try await controller.configure(name: name)
      try await controller.rename(to: name + " renamed")
      let renamed = await controller.name()
      ```

      The code is Step 3's. What changed is where it runs.
      """
    for (text, drawn) in [(compilerSaysNow, 578.0), (synchronousOnTheActor, 564.0)] {
      let slide = SlideFit.Slide(line: 1, title: "", lines: text.components(separatedBy: "\n"))
      let estimate = SlideFit.measure(slide).height * 28.35
      #expect(
        estimate > SlideFit.budget * 28.35 && abs(estimate - drawn) < 43.5,
        "Marp drew \(drawn) px; estimated \(estimate) px: \(text.prefix(40))")
    }
  }
}
