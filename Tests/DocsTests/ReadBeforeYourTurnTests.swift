import Foundation
import Testing
import WorkshopSupport

/// While attendees work, the slide a failure sends them to is one they may read: before "Your
/// turn". Any check can fail while they work (the untouched starter fails some, a plausible wrong
/// answer fails any), so every lesson of a step points before "Your turn", and so does the first
/// hint. The one exception is `#stretch-task`: the stretch task comes after the exercise, so its
/// statement does too, and it must hold no line of the solution.
@Suite("Failures point to a slide before \"Your turn\"")
struct ReadBeforeYourTurnTests {
  typealias Step = StepFolder

  /// The anchor of the one section after "Your turn" a lesson may point to.
  static let stretchTask = "stretch-task"

  /// A step's deck: its lines, the index of its last "Your turn" heading, and each heading's
  /// anchor with its line index. A step with two hands-on blocks has "Your turn (1/2)" and "Your
  /// turn (2/2)": the exercise is over only after the last, so the rules hold up to it.
  struct Deck {
    let path: String
    let lines: [Substring]
    let turn: Int
    let headings: [(anchor: String, index: Int)]

    init(_ step: Step) throws {
      path = try #require(step.deck, "no deck slides/0\(step.number)-….md")
      lines = DocsTests.read(path).split(separator: "\n", omittingEmptySubsequences: false)
      turn = try #require(
        lines.lastIndex(where: Self.isYourTurn), "\(path) has no slide \"Your turn\"")
      headings = lines.enumerated().filter { $0.element.hasPrefix("#") }.map {
        (
          DocsTests.anchor($0.element.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)),
          $0.offset
        )
      }
    }

    /// Whether `line` is the heading of a "Your turn" slide.
    static func isYourTurn(_ line: Substring) -> Bool {
      line.hasPrefix("## Your turn") || line.hasPrefix("# Your turn")
    }

    /// The line index of the heading with `anchor`, if the deck has one.
    func index(of anchor: String) -> Int? { headings.first { $0.anchor == anchor }?.index }

    /// The lines of the section that starts at the heading with `anchor`, up to the next one.
    func section(_ anchor: String) -> ArraySlice<Substring> {
      guard let start = index(of: anchor) else { return [] }
      let end = headings.first { $0.index > start }?.index ?? lines.count
      return lines[start..<end]
    }
  }

  /// Every slide anchor a step's checks name, with where: `read: "…"` in `step.lesson(…)`, and
  /// `slide: "slides/<deck>#…"` in a `Lesson(…)` written out (a `whenStuck`, for example).
  static func lessonAnchors(of step: Step, deck: String) -> [(place: String, anchor: String)] {
    let read = #/read:\s*"([a-z0-9_-]+)"/#
    let slide = #/slide:\s*"(slides/[A-Za-z0-9_-]+\.md)#([a-z0-9_-]+)"/#
    var anchors: [(String, String)] = []
    for file in DocsTests.swiftFiles(under: "Tests/Step\(step.number)Tests")
    where !file.contains("/Probes/") {
      let source = DocsTests.read(file)
      func line(_ range: Range<String.Index>) -> String {
        "\(file):\(source[..<range.lowerBound].filter { $0 == "\n" }.count + 1)"
      }
      for match in source.matches(of: read) {
        anchors.append((line(match.range), String(match.output.1)))
      }
      for match in source.matches(of: slide) where match.output.1 == deck {
        anchors.append((line(match.range), String(match.output.2)))
      }
    }
    return anchors
  }

  /// Every `slides/<deck>#…` link in the step's first hint, `Hints/1-….md`.
  static func firstHintAnchors(of step: Step, deck: String) -> [(place: String, anchor: String)] {
    let folder = "\(step.starter)/Hints"
    let link = #/(slides/[A-Za-z0-9_-]+\.md)#([a-z0-9_-]+)/#
    return ((try? Repository.names(in: folder, ending: ".md")) ?? []).filter { $0.hasPrefix("1-") }
      .flatMap { name in
        DocsTests.read("\(folder)/\(name)").matches(of: link).filter { $0.output.1 == deck }.map {
          ("\(folder)/\(name)", String($0.output.2))
        }
      }
  }

  @Test(
    "Every failure's Read: and the first hint point before \"Your turn\"", arguments: StepFolder.all
  )
  func readsComeBeforeYourTurn(_ step: Step) throws {
    let deck = try Deck(step)
    let lessons = Self.lessonAnchors(of: step, deck: deck.path)
    #expect(!lessons.isEmpty, "found no `read:` in Tests/Step\(step.number)Tests")
    let late = (lessons + Self.firstHintAnchors(of: step, deck: deck.path)).filter {
      guard $0.anchor != Self.stretchTask, let index = deck.index(of: $0.anchor) else {
        return false  // a missing anchor is DocsTests' "Every slide … exists" check's to report
      }
      return index > deck.turn
    }
    guard !late.isEmpty else { return }
    let list = late.map { "  \($0.place): \(deck.path)#\($0.anchor)" }.joined(separator: "\n")
    Issue.record(
      Comment(
        rawValue: """
          \(step.module): \(late.count) lesson(s) send the attendee past "Your turn" \
          (\(deck.path):\(deck.turn + 1)):
          \(list)
          Rule: a failure is met while the attendee still works (the starter fails some checks, \
          a plausible wrong answer fails any), and the slides after "Your turn" are the answer. \
          Only #\(Self.stretchTask) may come after it. Fix: point the lesson to a slide before \
          "Your turn" that states its rule, or move (or add) such a slide there, without the \
          solution's code.
          """))
  }

  /// What a slide up to the last "Your turn" must not say: a slide after it to read, or a
  /// command that prints the solution. Cold runs met both: "the checks marked fails in *What the
  /// checks verify*" sent attendees into the answer, and a `git diff` against `Solutions/` on the
  /// "Your turn" slide showed it.
  static func pointersPastTheExercise(in deck: Deck) -> [String] {
    let end = deck.lines[(deck.turn + 1)...].firstIndex { $0 == "---" } ?? deck.lines.count
    let later = deck.headings.filter { $0.index > end && $0.anchor != stretchTask }.map {
      (
        anchor: $0.anchor,
        title: deck.lines[$0.index].drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
          .replacing(#/ \(\d+/\d+\)$/#, with: "")
      )
    }.reduce(into: [(anchor: String, title: String)]()) { unique, heading in
      if !unique.contains(where: { $0.title == heading.title }) { unique.append(heading) }
    }
    var found: [String] = []
    let slides = SlideFit.slides(in: deck.lines.joined(separator: "\n")).filter { $0.line <= end }
    for slide in slides {
      var inCode = false
      for (line, number) in zip(slide.lines, slide.numbers) {
        if Markdown.isFence(line) {
          inCode.toggle()
          continue  // a fence's `from=Solutions/…` shows code: AnswerAfterTheExercise checks it
        }
        let place = "\(deck.path):\(number)"
        for heading in later
        where line.contains("*\(heading.title)*") || line.contains("\"\(heading.title)\"")
          || line.contains("#\(heading.anchor))")
        {
          found.append("  \(place): names \"\(heading.title)\", a slide after \"Your turn\"")
        }
        if (inCode && line.contains("Solutions/")) || line.contains("workshop diff") {
          found.append("  \(place): a command that shows the solution: \(line)")
        }
      }
    }
    return found
  }

  @Test(
    "Up to \"Your turn\", no slide sends the attendee past it or to the solution",
    arguments: StepFolder.all)
  func noPointerPastTheExercise(_ step: Step) throws {
    let found = Self.pointersPastTheExercise(in: try Deck(step))
    guard !found.isEmpty else { return }
    Issue.record(
      Comment(
        rawValue: """
          \(step.module): the slides up to the last "Your turn" point into the answer:
          \(found.joined(separator: "\n"))
          Rule: while the attendee works, the slides after "Your turn" and the solution are the \
          answer; the scoreboard already says which checks are red. Fix: say what the \
          attendee sees (the red lines on their side) instead of naming a later slide, and show \
          the comparison with the solution after the exercise.
          """))
  }

  @Test("The stretch task's slide holds no line of the solution", arguments: StepFolder.all)
  func stretchTaskHoldsNoAnswer(_ step: Step) throws {
    let deck = try Deck(step)
    let section = deck.section(Self.stretchTask)
    guard let start = deck.index(of: Self.stretchTask) else { return }
    #expect(start > deck.turn, "\(deck.path): #\(Self.stretchTask) is before \"Your turn\"")
    let added = AnswerAfterTheExerciseTests.addedLines(step)
    let found = section.enumerated().flatMap { offset, line in
      AnswerAfterTheExerciseTests.shown(
        added, in: String(line), where: "\(deck.path):\(start + offset + 1)")
    }
    AnswerAfterTheExerciseTests.report(
      found, step,
      what: "\(deck.path)#\(Self.stretchTask), where failures point while the "
        + "attendee works,",
      fix: "state the task there; show its code on a slide of its own after it.")
  }
}
