/// Markdown as the docs checks read it.
enum Markdown {
  /// Whether `line` opens or closes a fenced code block: after its indentation, three or more
  /// backticks and no backtick after them (CommonMark), so that a line that starts with inline
  /// code, such as "```` ```swift from=<path> ```` …", is text.
  static func isFence(_ line: some StringProtocol) -> Bool {
    let trimmed = line.drop { $0 == " " || $0 == "\t" }
    return trimmed.hasPrefix("```") && !trimmed.drop { $0 == "`" }.contains("`")
  }
}
