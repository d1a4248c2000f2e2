import Foundation

/// How much of a 16:9 slide of Marp's default theme a slide's Markdown fills, estimated from the
/// theme's own numbers (marp-core `themes/default.scss`, over github-markdown-css 5.9.0):
///
/// - the slide is 1280 × 720 px with 78.5 px of padding: 1123 × 563 px for content;
/// - text is 29 px at a line height of 1.5 (43.5 px a line); a paragraph or list ends with 16 px;
/// - code is 85% of that (24.65 px) at a line height of 1.15: 28.35 px a line, and a block adds
///   16 px of padding above and below, a 1 px border and 16 px after it;
/// - a monospace character is about 0.6 em (14.8 px): 1089 px inside a code block hold 73
///   columns; proportional text averages about 0.5 em (14.5 px): 77 characters a line, 73 in a
///   list, which indents by 2 em;
/// - `h1` is 1.6 em, `h2` 1.3 em, `h3` 1.1 em, each at a line height of 1.25 with 24 px above,
///   16 px below, and `h1`/`h2` 0.3 em of padding under them;
/// - a list item after the first adds 0.25 em (`li + li`); a link shows its text, not its URL;
/// - Marp renders Markdown with `breaks: true`: every source line of a paragraph, list item or
///   quote is a rendered line of its own (`hardWraps(in:)`, in `SlideText.swift`, reports the
///   lines that continue a paragraph).
///
/// The unit is one line of code (28.35 px); the slide holds 563 / 28.35 = 19.9 of them. The theme
/// shrinks an overflowing code block or heading to fit ("auto-scaling"), so an overfull slide does
/// not always spill: it shows smaller code, which the back of a room cannot read either.
///
/// Measured once in headless Chromium, with Liberation Sans and Mono (Helvetica's and Courier
/// New's metrics), over the decks' 229 slides: none was more than 0.5 units fuller than
/// estimated. The facilitator guide ("Why every slide fits") has the details.
///
/// Calibrated since against two slides as Marp draws them (issue 35): deck 01's "What the
/// compiler says now" ran 15 px into the bottom padding (578 px of content) and deck 04's
/// "Synchronous on the actor" 1 px (564 px), where this estimate, which divided a paragraph's
/// characters by a line's, gave 528 and 561 px. What it under-counted:
/// - a browser breaks a line between words only (`wrap(_:columns:)`), so a line ends short by
///   the word that did not fit: deck 01's paragraph of 231 characters takes 4 lines, not 3
///   (43.5 px);
/// - a line with inline code is taller: the code's monospace font, at 85%, reaches below the
///   text's (1.5 px a line, fitted: deck 01 has 4 such lines, deck 04 one);
/// - a code block takes about 1 px more than its padding, border and margin (fitted).
/// Calibrated, the estimate gives 579 and 564 px: both over the budget, as drawn.
struct SlideFit {
  static let budget = 19.8
  static let codeColumns = 73
  static let textColumns = 77
  static let listColumns = 73

  static let codeLine = 1.0
  static let codeBlockExtra = (16.0 * 2 + 2 + 16 + 1) / 28.35
  static let textLine = 43.5 / 28.35
  static let codeSpanLine = 1.5 / 28.35
  static let blockGap = 16.0 / 28.35
  static func heading(level: Int) -> Double {
    let size = [1: 1.6, 2: 1.3, 3: 1.1][level, default: 1.0] * 29
    let padding = level <= 2 ? size * 0.3 : 0
    return (size * 1.25 + padding + 24 + 16) / 28.35
  }

  /// One slide: its first line in the deck, its title, its Markdown without presenter notes,
  /// each line with its line number in the deck, and the lines of its HTML comments (the
  /// presenter notes, and Marp's directives).
  struct Slide {
    let line: Int
    let title: String
    let lines: [String]
    let numbers: [Int]
    let notes: [String]

    init(
      line: Int, title: String, lines: [String], numbers: [Int]? = nil, notes: [String] = []
    ) {
      self.line = line
      self.title = title
      self.lines = lines
      self.numbers = numbers ?? Array(line..<line + lines.count)
      self.notes = notes
    }
  }

  /// The slides of a Marp deck: split at `---` lines outside code, after the front matter, with
  /// HTML comments (the presenter notes, and directives) taken out.
  static func slides(in deck: String) -> [Slide] {
    var slides: [Slide] = []
    var current: [(number: Int, text: String)] = []
    var notes: [String] = []
    var start = 1
    var inCode = false
    var inComment = false
    var inFrontMatter = false
    for (index, raw) in deck.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      let line = String(raw)
      if index == 0, line == "---" {
        inFrontMatter = true
        continue
      }
      if inFrontMatter {
        if line == "---" {
          inFrontMatter = false
          start = index + 2
        }
        continue
      }
      if !inCode, inComment || line.trimmingCharacters(in: .whitespaces).hasPrefix("<!--") {
        inComment = !line.contains("-->")
        notes.append(
          line.replacingOccurrences(of: "<!--", with: "").replacingOccurrences(of: "-->", with: "")
            .trimmingCharacters(in: .whitespaces))
        continue
      }
      if Markdown.isFence(line) { inCode.toggle() }
      if !inCode, line == "---" {
        slides.append(slide(current, at: start, notes: notes))
        current = []
        notes = []
        start = index + 2
        continue
      }
      current.append((index + 1, line))
    }
    slides.append(slide(current, at: start, notes: notes))
    return slides.filter {
      !$0.lines.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty }
    }
  }

  /// A slide of `lines` that starts after the `---` at `line` - 1; its line is its first that is
  /// not blank.
  private static func slide(
    _ lines: [(number: Int, text: String)], at line: Int, notes: [String]
  ) -> Slide {
    let text = lines.map(\.text)
    let title = text.first { $0.hasPrefix("#") } ?? text.first { !$0.isEmpty } ?? ""
    let first = lines.first { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty }
    return Slide(
      line: first?.number ?? line, title: title, lines: text, numbers: lines.map(\.number),
      notes: notes)
  }

  /// What a slide fills, in lines of code, and its code lines wider than a slide.
  static func measure(_ slide: Slide) -> (height: Double, wideLines: [String]) {
    var height = 0.0
    var wide: [String] = []
    var paragraph: [String] = []
    var inCode = false
    var codeLines = 0

    // A line of text's height, in units, and the taller one of a line with inline code.
    func wrapped(_ text: String, columns: Int) -> Double {
      wrap(text, columns: columns).map { $0.contains("`") ? textLine + codeSpanLine : textLine }
        .reduce(0, +)
    }
    func endParagraph() {
      guard !paragraph.isEmpty else { return }
      // Marp renders with `breaks: true`: every source line is a rendered line of its own (a
      // continuation line is also a hard wrap, which `hardWraps(in:)` reports).
      let items = paragraph.map { $0.trimmingCharacters(in: .whitespaces) }
      // A table's columns share the width as a browser's automatic layout does, roughly: in
      // proportion to their longest cells.
      let table = items.filter { $0.hasPrefix("|") }.map {
        $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      }.filter { !$0.allSatisfy { $0.allSatisfy { "-: ".contains($0) } } }
      let widths = (0..<(table.map(\.count).max() ?? 0)).map { column in
        table.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
      }
      let total = max(1, widths.reduce(0, +))
      var listItems = 0
      var inList = false
      for item in items {
        if item.hasPrefix("|") {
          // A table row: as tall as its longest cell wraps in its column's share of the width.
          let cells = item.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
          if cells.allSatisfy({ $0.allSatisfy { "-: ".contains($0) } }) { continue }
          let rows =
            cells.enumerated().map { column, cell in
              let share = max(8, textColumns * widths[column] / total - 2)
              return wrapped(cell, columns: share)
            }.max() ?? textLine
          height += rows + 13 / 28.35
        } else {
          let isItem = startsItem(item)
          // A continuation line stays in its list item's indentation.
          inList = isItem || inList && !item.hasPrefix("|")
          let shown = item.replacing(#/\]\([^)]*\)/#, with: "]")
          height += wrapped(shown, columns: inList ? listColumns : textColumns)
          if isItem {
            if listItems > 0 { height += 0.25 * 29 / 28.35 }
            listItems += 1
          }
        }
      }
      height += blockGap
      paragraph = []
    }

    for line in slide.lines {
      if Markdown.isFence(line) {
        if inCode {
          height += Double(codeLines) * codeLine + codeBlockExtra
          codeLines = 0
        } else {
          endParagraph()
        }
        inCode.toggle()
        continue
      }
      if inCode {
        codeLines += 1
        if line.count > codeColumns { wide.append(line) }
        continue
      }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty {
        endParagraph()
      } else if trimmed.hasPrefix("#") {
        endParagraph()
        height += heading(level: trimmed.prefix { $0 == "#" }.count)
      } else {
        paragraph.append(line)
      }
    }
    endParagraph()
    // The first element has no margin above, the last none below.
    let first = slide.lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
    height -= blockGap + (first.hasPrefix("#") ? 24 / 28.35 : 0)
    return (height, wide)
  }

  /// The lines a browser draws `text` in, `columns` characters wide: it breaks between words
  /// only, so a line ends short by the word that did not fit (and a code span has no break
  /// inside unless it holds a space). A word longer than a line breaks where it must.
  static func wrap(_ text: String, columns: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
      if line.isEmpty {
        line = String(word)
      } else if line.count + 1 + word.count <= columns {
        line += " " + word
      } else {
        lines.append(line)
        line = String(word)
      }
      while line.count > columns {
        lines.append(String(line.prefix(columns)))
        line = String(line.dropFirst(columns))
      }
    }
    return lines + [line]
  }

  /// Whether a trimmed line starts a list item: `- `, `* `, `+ `, `1. ` or `1) `.
  static func startsItem(_ trimmed: String) -> Bool {
    trimmed.wholeMatch(of: #/([-*+]|\d+[.)])\s.*/#) != nil
  }
}
