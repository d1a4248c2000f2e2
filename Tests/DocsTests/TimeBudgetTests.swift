import Foundation
import Testing
import WorkshopSupport

/// A facilitator runs the day from the guide's timeline and presents each deck from its notes.
/// The two agree, add up to the slot with slack to spare, and present no more slides than the
/// minutes allow. The formats are in `TimeBudget`.
@Suite("The time budgets agree and add up")
struct TimeBudgetTests {
  static let guide = "slides/facilitator-guide.md"
  static let day = (heading: "## The timeline", minutes: 180, slack: 15)
  static let shortDay = (heading: "### The 90-minute variant", minutes: 90, slack: 10)
  /// At least 40 seconds a slide: a part of M minutes presents at most 1.5 × M slides.
  static let slidesPerMinute = 1.5

  /// The line under the timeline that names the decks the day does not present.
  static let notInTheDay = "Not in the day's plan:"

  /// The numbered decks: the introduction and one per step.
  static let decks = SlideFitTests.decks.filter { $0.wholeMatch(of: #/slides/\d\d-.+/#) != nil }

  static func report(_ problems: [String], rule: String, fix: String) {
    guard !problems.isEmpty else { return }
    Issue.record(
      Comment(
        rawValue: """
          \(problems.joined(separator: "\n"))
          Rule: \(rule)
          Fix: \(fix) The formats: Tests/DocsTests/TimeBudget.swift.
          """))
  }

  /// The step numbers a text names: "Step 4", "Steps 2 and 3", "Steps 2, 3, 5 and 6".
  static func steps(in text: String) -> [Int] {
    text.matches(of: #/Steps? (\d+(?:(?:, | and )\d+)*)/#).flatMap {
      $0.output.1.split { !$0.isNumber }.compactMap { Int($0) }
    }
  }

  /// What is wrong with a timeline: a clock that does not follow from the rows before it, an
  /// end that is not the slot's, too little slack.
  static func problems(
    of rows: [TimeBudget.Row], _ name: String, minutes: Int, slack: Int
  ) -> [String] {
    guard let end = rows.last, end.part == "End" else {
      return ["\(guide): \(name) has no table ending in a row `End`"]
    }
    var problems: [String] = []
    var clock = 0
    for row in rows {
      if row.clock != clock {
        problems.append(
          "\(guide):\(row.line): \"\(row.part)\" starts at \(TimeBudget.clock(row.clock)); the rows "
            + "before it end at \(TimeBudget.clock(clock))")
      }
      clock = row.clock + (row.minutes ?? 0)
    }
    if end.clock != minutes {
      problems.append(
        "\(guide):\(end.line): \(name) ends at \(TimeBudget.clock(end.clock)), the slot is "
          + "\(TimeBudget.clock(minutes))")
    }
    let spare = rows.filter { $0.part.hasPrefix("Slack") }.compactMap(\.minutes).reduce(0, +)
    if spare < slack {
      problems.append(
        "\(name) has \(spare) minutes of slack (rows named \"Slack …\"); it needs \(slack)")
    }
    return problems
  }

  @Test("The 3-hour timeline adds up, with slack, and runs every deck once")
  func theDay() {
    let rows = TimeBudget.timeline(under: Self.day.heading, in: DocsTests.read(Self.guide))
    var problems = Self.problems(
      of: rows, "the timeline", minutes: Self.day.minutes, slack: Self.day.slack)
    let guide = DocsTests.read(Self.guide)
    let outside =
      guide.split(separator: "\n").first { $0.hasPrefix(Self.notInTheDay) }
      .map { $0.matches(of: #/`(slides/[^`]+)`/#).map { String($0.output.1) } } ?? []
    for deck in Self.decks {
      let count = rows.filter { $0.deck == deck }.count
      if count != (outside.contains(deck) ? 0 : 1) {
        problems.append(
          "the timeline has \(count) rows for \(deck)"
            + (outside.contains(deck) ? ", which \"\(Self.notInTheDay)\" names" : ""))
      }
    }
    Self.report(
      problems,
      rule: "the day fits its 3 hours with at least \(Self.day.slack) minutes of slack, and every "
        + "deck has one row, whose minutes are the deck's budget, or is named on the line "
        + "\"\(Self.notInTheDay) …\" under the timeline (a new step, until the day makes room).",
      fix: "make each clock the one before it plus its minutes; cut a part or demo a step "
        + "(\"When you run late\") to keep the slack.")
  }

  @Test("The 90-minute variant adds up, with slack, and every step is in it or homework")
  func theShortDay() {
    let text = DocsTests.read(Self.guide)
    let rows = TimeBudget.timeline(under: Self.shortDay.heading, in: text)
    var problems = Self.problems(
      of: rows, "the 90-minute variant", minutes: Self.shortDay.minutes,
      slack: Self.shortDay.slack)
    let homework =
      text.split(separator: "\n").first { $0.hasPrefix("Homework: ") }.map(String.init) ?? ""
    let inRoom = Set(rows.flatMap { Self.steps(in: $0.part) })
    for step in StepFolder.all
    where !inRoom.contains(step.number) && !Self.steps(in: homework).contains(step.number) {
      problems.append(
        "Step \(step.number) is neither in the 90-minute variant nor in its line \"Homework: …\"")
    }
    Self.report(
      problems,
      rule: "the short day fits 90 minutes with at least \(Self.shortDay.slack) minutes of slack, "
        + "and each step is done in the room, given as homework, or both.",
      fix:
        "fix the table under \"\(Self.shortDay.heading)\", or name the step after \"Homework: \".")
  }

  @Test("The introduction's plan of the day is the guide's timeline")
  func introductionShowsTheTimeline() {
    let rows = TimeBudget.timeline(under: Self.day.heading, in: DocsTests.read(Self.guide))
    guard let intro = Self.decks.first,
      let slide = SlideFit.slides(in: DocsTests.read(intro)).first(where: {
        $0.title == "## The day"
      })
    else {
      Issue.record("slides/00-introduction.md has no slide \"## The day\" with the day's plan")
      return
    }
    let item = #/- (\d+:\d\d) .+?(?:, (\d+) minutes)?/#
    let shown = slide.lines.compactMap { $0.wholeMatch(of: item) }.map {
      "\($0.output.1) \($0.output.2.map { "\($0) min" } ?? "")"
    }
    let planned = rows.map {
      "\(TimeBudget.clock($0.clock)) \($0.minutes.map { "\($0) min" } ?? "")"
    }
    #expect(
      shown == planned,
      """
      \(intro):\(slide.line) "The day" shows \(shown), the guide's timeline \(planned).
      Rule: the room sees the plan the facilitator runs. Fix: one item per row of the guide's \
      timeline, written "- 0:15 Step 1, the unsafe controller, 20 minutes" ("- 3:00 End" last).
      """)
  }

  @Test("A deck's time budget adds up, and the guide says the same", arguments: decks)
  func deckBudget(_ deck: String) {
    let text = DocsTests.read(deck)
    guard let budget = TimeBudget.budget(of: text) else {
      Issue.record(
        "\(deck) has no slide \"## Time budget (N minutes)\" with a table | part | minutes |")
      return
    }
    var problems: [String] = []
    let sum = budget.parts.map(\.minutes).reduce(0, +)
    if sum != budget.total {
      problems.append(
        "\(deck): its parts add up to \(sum) minutes, its heading says \(budget.total)")
    }
    let guide = DocsTests.read(Self.guide)
    if let row = TimeBudget.timeline(under: Self.day.heading, in: guide).first(where: {
      $0.deck == deck
    }), row.minutes != budget.total {
      problems.append(
        "\(Self.guide):\(row.line): the timeline gives \(deck) \(row.minutes ?? 0) minutes, the "
          + "deck \(budget.total)")
    }
    if !deck.hasPrefix("slides/00-") {
      let parts = TimeBudget.merged(budget.parts)
      let expected =
        "\(budget.total) minutes (\(parts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")))"
      if let split = TimeBudget.split(of: deck, in: guide) {
        let said =
          "\(split.total) minutes (\(split.kinds.map { "\($0.0) \($0.1)" }.joined(separator: ", ")))"
        if said != expected {
          problems.append(
            "\(Self.guide): says \"\(said)\" for \(deck), whose budget is \"\(expected)\"")
        }
      } else {
        problems.append("\(Self.guide) has no line \"Deck `\(deck)`, \(expected)\"")
      }
    }
    Self.report(
      problems,
      rule: "a deck's budget adds up, and the guide's timeline and the step's section give it the "
        + "same minutes, part by part (consecutive parts of one kind added).",
      fix: "change the deck's \"Time budget\" table, its Part notes, and the guide together.")
  }

  @Test("The guide's hands-on estimates plan what the decks give")
  func handsOnPlan() {
    let guide = DocsTests.read(Self.guide)
    let rows = TimeBudget.table(after: "### How long the hands-on takes", in: guide)
    var problems: [String] = []
    for step in StepFolder.all {
      guard let row = rows.first(where: { $0.cells.first == "\(step.number)" }) else {
        problems.append(
          "\(Self.guide): no row for Step \(step.number) under \"How long the hands-on takes\"")
        continue
      }
      let deck = step.deck
      let given =
        deck.flatMap { TimeBudget.budget(of: DocsTests.read($0)) }?.parts
        .filter { $0.kind == .handsOn }.map(\.minutes) ?? []
      let planned = row.cells.last.map { $0.split { !$0.isNumber }.compactMap { Int($0) } } ?? []
      if planned != given {
        problems.append(
          "\(Self.guide):\(row.line): plans \(planned) minutes of hands-on for Step \(step.number), "
            + "its deck gives \(given)")
      }
    }
    Self.report(
      problems,
      rule: "the guide's table of estimates and the decks plan the same hands-on minutes.",
      fix: "change the deck's hands-on parts (table and Part notes) or the table's last column.")
  }

  @Test("A deck's parts start where its notes say, and fit their minutes", arguments: decks)
  func parts(_ deck: String) {
    let text = DocsTests.read(deck)
    guard let budget = TimeBudget.budget(of: text),
      let slides = TimeBudget.presented(SlideFit.slides(in: text))
    else {
      Issue.record(
        """
        \(deck) needs a slide "## Time budget (N minutes)" and a slide "# Appendix", after the \
        last slide it presents
        """)
      return
    }
    var problems: [String] = []
    var starts = slides.indices.compactMap { index in
      TimeBudget.part(startedBy: slides[index]).map { (index, $0) }
    }
    if starts.first?.0 != 0 {
      problems.append("\(deck):\(slides.first?.line ?? 1): the title slide starts no part")
    }
    if starts.map(\.1) != budget.parts {
      problems.append(
        "\(deck): the notes mark the parts \(starts.map(\.1)), the \"Time budget\" slide lists "
          + "\(budget.parts)")
    }
    starts.append((slides.count, TimeBudget.Part(name: "", minutes: 0)))
    for (start, end) in zip(starts, starts.dropFirst()) {
      let (index, part) = start
      let count = end.0 - index
      let first = slides[index]
      let place = "\(deck):\(first.line) \(part)"
      switch part.kind {
      case .handsOn:
        if !first.title.hasPrefix("## Your turn") || count != 1 {
          problems.append("\(place): a hands-on part is one slide, \"Your turn\"; it has \(count)")
        }
      case .after where first.title != "# After the exercise":
        problems.append("\(place): starts at \"\(first.title)\", not \"# After the exercise\"")
      default:
        let most = Int((Double(part.minutes) * Self.slidesPerMinute).rounded(.down))
        if count > most {
          problems.append("\(place): \(count) slides; \(part.minutes) minutes present \(most)")
        }
        for slide in slides[index..<end.0] where slide.title.hasPrefix("## Your turn") {
          problems.append("\(deck):\(slide.line): \"Your turn\" inside the presented part \(part)")
        }
      }
    }
    Self.report(
      problems,
      rule: "a part's first slide says `Part: <name>, <M> minutes.` in its note, in the order of "
        + "the \"Time budget\" table; a hands-on part is its \"Your turn\"; another part presents at "
        + "most \(Self.slidesPerMinute) slides a minute.",
      fix: "move slides after \"# Appendix\" (they stay in the deck, for reading), merge short "
        + "ones, or change the minutes in the table, the note and the guide together.")
  }

  @Test("Every presented slide has a script", arguments: decks)
  func scripts(_ deck: String) {
    guard let slides = TimeBudget.presented(SlideFit.slides(in: DocsTests.read(deck))) else {
      Issue.record("\(deck) has no slide \"# Appendix\", after the last slide it presents")
      return
    }
    let silent = slides.filter { (TimeBudget.script(of: $0)?.count ?? 0) < 20 }
    Self.report(
      silent.map { "\(deck):\($0.line) \($0.title): no \"Say: …\" in its presenter note" },
      rule: "every slide before \"# Appendix\" has a presenter note that says what to say, in a "
        + "sentence or two.",
      fix: "add `<!-- Say: … -->` to the slide (Marp shows HTML comments as presenter notes).")
  }
}
