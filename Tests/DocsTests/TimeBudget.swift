import Foundation

/// The day's plan as the documents write it: the facilitator guide's timelines, each deck's "Time
/// budget" slide, the parts its presenter notes mark, and the guide's split of each step.
///
/// - A timeline is a table `| clock | part | minutes | deck |` under a heading of the guide; its
///   last row is `End`. Rows whose part starts with "Slack" are the slack.
/// - A deck's budget is its slide `## Time budget (N minutes)`: a table `| part | minutes |`, in
///   the order the parts are presented. A part named `Hands-on: …` is a hands-on block, one named
///   `After the exercise: …` the walk-through of the answer, `Wrap-up` the day's end; any other
///   is talk.
/// - A deck is presented up to its slide `# Appendix`. The first slide of each part says
///   `Part: <name>, <M> minutes.` in its presenter note; every presented slide says `Say: …`.
enum TimeBudget {
  enum Kind: String {
    case talk
    case handsOn = "hands-on"
    case after = "after the exercise"
    case wrapUp = "wrap-up"

    init(part name: String) {
      if name.hasPrefix("Hands-on:") {
        self = .handsOn
      } else if name.hasPrefix("After the exercise:") {
        self = .after
      } else if name.hasPrefix("Wrap-up") {
        self = .wrapUp
      } else {
        self = .talk
      }
    }
  }

  struct Part: Equatable, CustomStringConvertible {
    let name: String
    let minutes: Int
    var kind: Kind { Kind(part: name) }
    var description: String { "\"\(name)\", \(minutes) min" }
  }

  /// A row of a timeline: when it starts (minutes from the start), what, for how long, which deck.
  struct Row {
    let line: Int
    let clock: Int
    let part: String
    let minutes: Int?
    let deck: String?
  }

  /// `1:05` as 65.
  static func minutes(ofClock text: String) -> Int? {
    let pieces = text.split(separator: ":")
    guard pieces.count == 2, let hours = Int(pieces[0]), let minutes = Int(pieces[1]) else {
      return nil
    }
    return hours * 60 + minutes
  }

  /// `65` as `1:05`.
  static func clock(_ minutes: Int) -> String {
    String(format: "%d:%02d", minutes / 60, minutes % 60)
  }

  /// The cells of a Markdown table row, trimmed; nil for a line that is not a row.
  static func cells(_ line: Substring) -> [String]? {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    guard trimmed.hasPrefix("|"), trimmed.hasSuffix("|"), trimmed.count > 1 else { return nil }
    return trimmed.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
      .map { $0.trimmingCharacters(in: .whitespaces) }
  }

  /// The rows of the first table after the line `heading`, header and separator left out.
  static func table(after heading: String, in text: String) -> [(line: Int, cells: [String])] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard let start = lines.firstIndex(where: { $0 == heading }) else { return [] }
    var rows: [(Int, [String])] = []
    for index in (start + 1)..<lines.count {
      guard let cells = cells(lines[index]) else {
        if rows.isEmpty, !lines[index].hasPrefix("#") { continue }
        break
      }
      rows.append((index + 1, cells))
    }
    return Array(rows.dropFirst(2))
  }

  /// The timeline under `heading` in the facilitator guide.
  static func timeline(under heading: String, in guide: String) -> [Row] {
    table(after: heading, in: guide).compactMap { line, cells in
      guard cells.count >= 4, let clock = minutes(ofClock: cells[0]) else { return nil }
      let deck = cells[3].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
      return Row(
        line: line, clock: clock, part: cells[1], minutes: Int(cells[2]),
        deck: deck.isEmpty ? nil : deck)
    }
  }

  /// A deck's `## Time budget (N minutes)`: N, and the table's parts.
  static func budget(of deck: String) -> (total: Int, parts: [Part])? {
    let heading = #/^## Time budget \((\d+) minutes\)$/#
    guard
      let line = deck.split(separator: "\n").first(where: { $0.wholeMatch(of: heading) != nil }),
      let match = line.wholeMatch(of: heading), let total = Int(match.output.1)
    else { return nil }
    let parts = table(after: String(line), in: deck).compactMap { _, cells -> Part? in
      guard cells.count == 2, let minutes = Int(cells[1]) else { return nil }
      return Part(name: cells[0], minutes: minutes)
    }
    return (total, parts)
  }

  /// The guide's split of a deck, `Deck \`<deck>\`, N minutes (7 talk, 10 hands-on, …)`: N and
  /// the kinds in order.
  static func split(of deck: String, in guide: String) -> (total: Int, kinds: [(Int, String)])? {
    let flat = guide.replacingOccurrences(of: "\n", with: " ")
    return flat.matches(of: #/Deck `([^`]+)`, (\d+) minutes \(([^)]*)\)/#)
      .first { $0.output.1 == deck }.flatMap(parse)
  }

  private static func parse(
    _ match: Regex<(Substring, Substring, Substring, Substring)>.Match
  ) -> (total: Int, kinds: [(Int, String)])? {
    guard let total = Int(match.output.2) else { return nil }
    let kinds = match.output.3.split(separator: ",").compactMap { item -> (Int, String)? in
      let words = item.trimmingCharacters(in: .whitespaces)
      guard let space = words.firstIndex(of: " "), let minutes = Int(words[..<space]) else {
        return nil
      }
      return (minutes, String(words[words.index(after: space)...]))
    }
    return (total, kinds)
  }

  /// The parts' kinds and minutes in order, consecutive parts of one kind added together.
  static func merged(_ parts: [Part]) -> [(Int, String)] {
    var kinds: [(Int, String)] = []
    for part in parts {
      if let last = kinds.last, last.1 == part.kind.rawValue {
        kinds[kinds.count - 1].0 += part.minutes
      } else {
        kinds.append((part.minutes, part.kind.rawValue))
      }
    }
    return kinds
  }

  /// The slides a deck presents: those before its slide `# Appendix`.
  static func presented(_ slides: [SlideFit.Slide]) -> [SlideFit.Slide]? {
    guard let appendix = slides.firstIndex(where: { $0.title == "# Appendix" }) else { return nil }
    return Array(slides[..<appendix])
  }

  /// The part a slide's presenter note starts: `Part: <name>, <M> minutes.`
  static func part(startedBy slide: SlideFit.Slide) -> Part? {
    for note in slide.notes {
      if let match = note.wholeMatch(of: #/Part: (.+), (\d+) minutes?\./#),
        let minutes = Int(match.output.2)
      {
        return Part(name: String(match.output.1), minutes: minutes)
      }
    }
    return nil
  }

  /// What the presenter says on a slide: the text after `Say: ` in its notes.
  static func script(of slide: SlideFit.Slide) -> String? {
    guard let start = slide.notes.firstIndex(where: { $0.hasPrefix("Say: ") }) else { return nil }
    let text = slide.notes[start...].prefix { !$0.isEmpty }.joined(separator: " ")
    return String(text.dropFirst("Say: ".count))
  }
}
