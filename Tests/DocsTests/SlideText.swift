import Foundation

/// What Marp draws from a slide's text, beyond its size: where a line breaks, which characters
/// become images, what a link shows.
///
/// - marp-core renders Markdown with `breaks: true` (`src/marp.ts`): a line break inside a
///   paragraph, list item or quote is a line break on the slide, so a paragraph hard-wrapped in
///   the source shows as a full line and a stub. `.ci/reflow-decks` joins such lines.
/// - marp-core replaces every Unicode emoji (`emoji-regex`, which also matches characters whose
///   default presentation is text, such as `▶` and `✔`) with a 1 em twemoji image, inside code
///   blocks too (`src/emoji/emoji.ts`): wider than a 0.6 em code cell, it pushes the rest of its
///   line out of column.
/// - marp-core linkifies bare URLs, which show in full and break mid-word at the slide's edge.
extension SlideFit {
  /// The deck lines that continue the paragraph, list item or quote of the line before them.
  static func hardWraps(in slide: Slide) -> [Int] {
    var wraps: [Int] = []
    var inCode = false
    var previous: (number: Int, text: String)?
    for (number, line) in zip(slide.numbers, slide.lines) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if Markdown.isFence(trimmed) { inCode.toggle() }
      if inCode || Markdown.isFence(trimmed) {
        previous = nil
        continue
      }
      if let previous, previous.number + 1 == number, continues(trimmed, after: previous.text) {
        wraps.append(number)
      }
      // A bare `>` is a blank line inside a quote: what follows starts a paragraph.
      let joinable =
        !trimmed.isEmpty && trimmed != "---" && trimmed != ">"
        && !["#", "|", "<"].contains { trimmed.hasPrefix($0) }
      previous = joinable ? (number, trimmed) : nil
    }
    return wraps
  }

  /// Whether `line` goes on with the text of `previous` (both trimmed) rather than starting a
  /// block of its own. As `.ci/reflow-decks`, a line without `>` after a quote (a lazy
  /// continuation) is left alone.
  private static func continues(_ line: String, after previous: String) -> Bool {
    if previous.hasPrefix(">") {
      guard line.hasPrefix(">") else { return false }
      let body = line.dropFirst().trimmingCharacters(in: .whitespaces)
      return !body.isEmpty && !startsBlock(body)
    }
    return !startsBlock(line)
  }

  /// Whether a trimmed line begins a block: a blank, heading, table row, fence, HTML, quote,
  /// rule or list item.
  private static func startsBlock(_ line: String) -> Bool {
    line.isEmpty || line == "---" || startsItem(line)
      || ["#", "|", "```", "<", ">"].contains { line.hasPrefix($0) }
  }

  /// The emoji in a slide's code blocks: non-ASCII scalars with Unicode's `Emoji` property
  /// (ASCII `#`, `*` and the digits have it too, for keycaps, and stay text).
  static func emoji(in slide: Slide) -> [(line: Int, scalar: Unicode.Scalar)] {
    var found: [(line: Int, scalar: Unicode.Scalar)] = []
    var inCode = false
    for (number, line) in zip(slide.numbers, slide.lines) {
      if Markdown.isFence(line) {
        inCode.toggle()
        continue
      }
      guard inCode else { continue }
      found += emoji(in: line).map { (number, $0) }
    }
    return found
  }

  /// The scalars of `text` that Marp draws as emoji images.
  static func emoji(in text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { !$0.isASCII && $0.properties.isEmoji }
  }

  /// The deck lines, outside code blocks, that show a URL as text: a bare or `<…>` URL, or a
  /// link whose text is one. A Markdown link shows only its text, which may be a name.
  static func bareURLs(in slide: Slide) -> [Int] {
    var found: [Int] = []
    var inCode = false
    for (number, line) in zip(slide.numbers, slide.lines) {
      if Markdown.isFence(line) {
        inCode.toggle()
        continue
      }
      let shown = line.replacing(#/\]\([^)]*\)/#, with: "]")
      if !inCode, shown.contains(#/https?:\/\/|www\./#) { found.append(number) }
    }
    return found
  }
}
