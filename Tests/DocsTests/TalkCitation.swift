import Foundation

/// Finds the sentences that speak for one of the two talks the workshop retells, and the slides
/// they cite. The rule, the accepted citation forms and the allowlist are documented in the
/// ledger's introduction (`slides/talk-claims.md`); keep the two in step.
struct TalkCitation {
  /// A sentence of a document or a source, with the line it starts on.
  struct Sentence: Equatable {
    let line: Int
    let text: String
  }

  /// A citation's talk and slides, as written: `(2023 talk, slides 23–28)`.
  struct Cited: Equatable {
    let talk: Int
    let slides: [ClosedRange<Int>]
    let text: String
  }

  // MARK: - The rule

  /// A mention of a talk (simple word boundaries, so that "talk's" ends a word at the quote): "the talk", "the 2023 talk", "the talks'", "both talks", "a talk", …,
  /// a slide number ("slide 9", "slides 23–28"; numbered slides exist only in the talks, the
  /// workshop's decks name theirs by heading), or a talk's year alone in parentheses, "(2023)".
  let mention = try! Regex(
    #"(?i)\b(?:the|both|either|neither|each|a|this|that|its)\s+(?:(?:2023|2024)\s+)?talks?\b|\b(?:2023|2024)\s+talks?\b|\bslides?\s+\d|\((?:2023|2024)\)"#
  ).wordBoundaryKind(.simple)

  /// One talk's part of a citation: `2023 talk, slide 9`, `2024 talk, slides 25–27, 33`,
  /// `2023 talk, slides 60, 64 and 66`.
  static let citedTalk =
    #"(2023|2024) talk, slides? (\d+(?:[–-]\d+)?(?:(?:, | and |, and )\d+(?:[–-]\d+)?)*)"#

  /// A citation: one talk's part, or both talks' parts joined by "; ", in parentheses; after
  /// another "; " it may name what shows the claim today: `(2023 talk, slide 64; probe X)`.
  let citation = try! Regex(
    #"\("# + Self.citedTalk + #"(?:; "# + Self.citedTalk + #")?(?:; [^()]*)?\)"#)

  /// One talk's part, alone.
  let part = try! Regex(Self.citedTalk)

  /// The regular expressions are not Sendable: make one `TalkCitation` where it is used.
  init() {}

  /// Phrases that attribute nothing, removed before a sentence is searched for mentions. Each
  /// with its reason; keep the list short.
  static let allowed: [(phrase: String, reason: String)] = [
    (
      "two iOSDC Japan talks by Himeshi",
      "the README's and the introduction's opening line names both talks, it retells none"
    ),
    (
      "\"Free Core Data from threads with actors\" (2023) and \"Concurrency-safe SwiftData\" (2024)",
      "the introduction's opening line names both talks by title and year"
    ),
    (
      "What changed since the talks",
      "the title of a section in the introduction and the guide, named where it is linked"
    ),
    ("attendees who know the talks", "who will ask, not what a talk says"),
    ("The talks' claims, slide by slide", "the ledger's title, where it is linked"),
    (
      "[The 2023 talk](https://fortee.jp/iosdc-japan-2023/proposal/240c16ac-498a-4d17-a43a-f34f0fdbe041)",
      "a link to the talk names it, it says nothing for it"
    ),
  ]

  // MARK: - Finding sentences

  /// The sentences of a Markdown document: paragraphs, list items, table rows, quotes and
  /// presenter notes, joined across the lines they wrap over. Headings (anchors that other
  /// documents link to), fenced code (the repository's code, checked where it lives) and the
  /// front matter are left out.
  static func sentences(markdown text: String) -> [Sentence] {
    var blocks: [[(Int, String)]] = []
    var current: [(Int, String)] = []
    var inFence = false
    var inFrontMatter = text.hasPrefix("---\n")
    func close() {
      if !current.isEmpty { blocks.append(current) }
      current = []
    }
    for (offset, raw) in text.components(separatedBy: "\n").enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if inFrontMatter {
        inFrontMatter = offset == 0 || line != "---"
        continue
      }
      if Markdown.isFence(line) {
        close()
        inFence.toggle()
        continue
      }
      if inFence { continue }
      if line.isEmpty || line == "---" || line.hasPrefix("#") {
        close()
        continue
      }
      let starts = ["- ", "* ", "|", "> ", "<!--"].contains { line.hasPrefix($0) }
      if starts || line.firstMatch(of: #/^\d+\. /#) != nil { close() }
      current.append((offset + 1, line))
    }
    close()
    return blocks.flatMap(split)
  }

  /// The sentences of a Swift file: each run of comment lines is one block, each other line
  /// (a string, a trailing comment) a block of its own.
  static func sentences(swift text: String) -> [Sentence] {
    var blocks: [[(Int, String)]] = []
    var current: [(Int, String)] = []
    for (offset, raw) in text.components(separatedBy: "\n").enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("//") {
        current.append(
          (offset + 1, String(line.drop { $0 == "/" }).trimmingCharacters(in: .whitespaces)))
        continue
      }
      if !current.isEmpty { blocks.append(current) }
      current = []
      if !line.isEmpty { blocks.append([(offset + 1, line)]) }
    }
    if !current.isEmpty { blocks.append(current) }
    return blocks.flatMap(split)
  }

  /// The sentences of a wrong answer's description: the lines before its diff.
  static func sentences(patch text: String) -> [Sentence] {
    let lines = text.components(separatedBy: "\n")
    let end = lines.firstIndex { $0.hasPrefix("diff ") || $0.hasPrefix("--- ") } ?? lines.count
    return sentences(markdown: lines[..<end].joined(separator: "\n"))
  }

  /// Joins a block's lines with spaces and splits it after `.`, `?` or `!` followed by a space and
  /// a capital letter, a quote or emphasis: the next sentence.
  static func split(_ block: [(Int, String)]) -> [Sentence] {
    var text = ""
    var starts: [(offset: Int, line: Int)] = []
    for (line, part) in block {
      if !text.isEmpty { text += " " }
      starts.append((text.count, line))
      text += part
    }
    var sentences: [Sentence] = []
    var start = text.startIndex
    let ends = text.matches(of: #/[.?!]\s+(?=[A-Z"“*])/#)
    func add(_ range: Range<String.Index>) {
      let offset = text.distance(from: text.startIndex, to: range.lowerBound)
      let line = starts.last { $0.offset <= offset }?.line ?? block[0].0
      let sentence = String(text[range]).trimmingCharacters(in: .whitespaces)
      if !sentence.isEmpty { sentences.append(Sentence(line: line, text: sentence)) }
    }
    for end in ends {
      add(start..<end.range.upperBound)
      start = end.range.upperBound
    }
    add(start..<text.endIndex)
    return sentences
  }

  // MARK: - Reading citations

  /// The citations in a sentence.
  func citations(in text: String) -> [Cited] {
    text.matches(of: citation).flatMap { match in
      let whole = String(text[match.range])
      return whole.matches(of: part).compactMap { part -> Cited? in
        guard let talk = part.output[1].substring.flatMap({ Int($0) }),
          let list = part.output[2].substring
        else { return nil }
        return Cited(talk: talk, slides: Self.ranges(String(list)), text: whole)
      }
    }
  }

  /// Whether a sentence speaks for a talk without citing one: a mention left after the
  /// citations and the allowed phrases are taken out.
  func lacksCitation(_ text: String) -> Bool {
    guard citations(in: text).isEmpty else { return false }
    var rest = text
    for allowed in Self.allowed { rest = rest.replacingOccurrences(of: allowed.phrase, with: "") }
    return rest.firstMatch(of: mention) != nil
  }

  /// "9", "23–28", "36, 38", "60, 64 and 66" as ranges.
  static func ranges(_ list: String) -> [ClosedRange<Int>] {
    list.replacingOccurrences(of: " and ", with: ",").split(separator: ",").compactMap { item in
      let bounds = item.split(whereSeparator: { $0 == "–" || $0 == "-" })
        .compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
      guard let low = bounds.first, let high = bounds.last, low <= high else { return nil }
      return low...high
    }
  }

  // MARK: - The ledger

  /// The slides each talk's section of the ledger has rows for: the numbers in each row's first
  /// cell, under the heading `## The 2023 talk…` or `## The 2024 talk…`.
  static func ledgerRows(_ ledger: String) -> [Int: [ClosedRange<Int>]] {
    var rows: [Int: [ClosedRange<Int>]] = [:]
    var talk: Int?
    for line in ledger.components(separatedBy: "\n") {
      if line.hasPrefix("## ") {
        talk = line.firstMatch(of: #/^## The (2023|2024) talk/#).flatMap { Int($0.output.1) }
        continue
      }
      guard let talk, line.hasPrefix("|") else { continue }
      let cell = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().first
      guard let cell, cell.firstMatch(of: #/\d/#) != nil else { continue }
      rows[talk, default: []] += ranges(String(cell))
    }
    return rows
  }
}
