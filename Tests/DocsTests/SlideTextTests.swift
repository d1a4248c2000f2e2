import Foundation
import Testing
import WorkshopSupport

/// The decks' text shows as written: no line breaks the author did not mean, no emoji images in
/// code, no URLs spelled out on a slide. What Marp does, and its sources, are in `SlideText`.
@Suite("Slides show their text as Marp draws it")
struct SlideTextTests {
  @Test("Every paragraph and list item is one source line", arguments: SlideFitTests.decks)
  func noHardWraps(_ deck: String) {
    let lines = SlideFit.slides(in: DocsTests.read(deck)).flatMap { slide in
      SlideFit.hardWraps(in: slide).map { "\(deck):\($0) (\(slide.title))" }
    }
    #expect(
      lines.isEmpty,
      Comment(
        rawValue: """
          \(lines.count) line(s) continue the paragraph, list item or quote above them:
          \(lines.joined(separator: "\n"))
          Rule: Marp renders Markdown with `breaks: true`, so every line break inside a \
          paragraph is a line break on the slide: a hard-wrapped sentence shows as a full line \
          and a stub. Fix: `.ci/reflow-decks \(deck)` puts each paragraph, list item and quote \
          on one source line (a line break you mean: make it a list item, or a new paragraph).
          """))
  }

  @Test("No code block holds a character Marp draws as an emoji", arguments: SlideFitTests.decks)
  func noEmojiInCode(_ deck: String) {
    let found = SlideFit.slides(in: DocsTests.read(deck)).flatMap { slide in
      SlideFit.emoji(in: slide).map { line, scalar in
        let code = String(scalar.value, radix: 16, uppercase: true)
        return "\(deck):\(line) (\(slide.title)): U+\(code) \(scalar)"
      }
    }
    #expect(
      found.isEmpty,
      Comment(
        rawValue: """
          \(found.count) emoji in code blocks:
          \(found.joined(separator: "\n"))
          Rule: Marp replaces every Unicode emoji, in code too, with a 1 em image, wider than a \
          code cell, so the columns after it no longer line up. Fix: a character that stays \
          text, e.g. `►` for `▶`, `✓` for `✔`.
          """))
  }

  @Test("No slide shows a URL as text", arguments: SlideFitTests.decks)
  func noBareURLs(_ deck: String) {
    let found = SlideFit.slides(in: DocsTests.read(deck)).flatMap { slide in
      SlideFit.bareURLs(in: slide).map { "\(deck):\($0) (\(slide.title))" }
    }
    #expect(
      found.isEmpty,
      Comment(
        rawValue: """
          \(found.count) line(s) show a URL:
          \(found.joined(separator: "\n"))
          Rule: a URL on a slide breaks mid-word and nobody types it from the back of the room. \
          Fix: put the link in the handout (slides/links.md) and point to it, or show a name: \
          `[SE-0414](https://…)`.
          """))
  }

  @Test("A hard-wrapped paragraph fails and counts as two lines")
  func hardWrap() throws {
    let sentence = String(repeating: "word ", count: 12)
    let deck = """
      ---
      marp: true
      ---

      ## Wrapped

      \(sentence)
      stub.

      - an item
        and its stub
      - a second item

      > a quote
      > and its stub

      ---

      ## Not wrapped

      \(sentence)stub.

      - an item
      - a second item

      | a table | row |
      |---|---|

      > a quote
      >
      > and a second paragraph
      """
    let slides = SlideFit.slides(in: deck)
    try #require(slides.count == 2)
    #expect(SlideFit.hardWraps(in: slides[0]) == [8, 11, 15])
    #expect(SlideFit.hardWraps(in: slides[1]).isEmpty)
    let one = SlideFit.Slide(line: 1, title: "", lines: [sentence + "stub."])
    let two = SlideFit.Slide(line: 1, title: "", lines: [sentence, "stub."])
    #expect(SlideFit.measure(two).height > SlideFit.measure(one).height + 1)
  }

  @Test("The emoji check flags ▶ and ✔, not the decks' other symbols")
  func emoji() {
    #expect(SlideFit.emoji(in: "▶ ✔ ⚠ ❌ ✅ ↔ ©") == Array("▶✔⚠❌✅↔©".unicodeScalars))
    // What the decks' diagrams use: box drawing, arrows, marks, dashes; and ASCII, whose `#`,
    // `*` and digits have the Emoji property (keycaps) but stay text.
    #expect(SlideFit.emoji(in: "─│└┘┐┼├ █ → ← ↳ ▼ ► ▸ ✓ ✘ ✗ × · … — –").isEmpty)
    #expect(SlideFit.emoji(in: "# * 0123456789 -> <- |").isEmpty)
    let code = SlideFit.Slide(line: 1, title: "", lines: ["▶ prose", "```text", "a ▶ b", "```"])
    #expect(SlideFit.emoji(in: code).map(\.line) == [3])
  }

  @Test("A URL shows unless it is a link's target")
  func bareURLs() {
    let slide = SlideFit.Slide(
      line: 1, title: "",
      lines: [
        "- [SE-0414](https://github.com/swiftlang/swift-evolution)",
        "- SE-0414: https://github.com/swiftlang/swift-evolution",
        "- <https://example.com>",
        "- [https://example.com](https://example.com)",
        "- see www.sqlite.org",
        "```text",
        "https://in.code.block",
        "```",
      ])
    #expect(SlideFit.bareURLs(in: slide) == [2, 3, 4, 5])
  }
}
