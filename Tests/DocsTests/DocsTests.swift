import Foundation
import Testing
import WorkshopConventions
import WorkshopSupport

/// The README, the slides and the hints show the repository's code and output, and every slide
/// they point to exists. Both drift silently unless something checks them.
@Suite("Docs show the repository's code")
struct DocsTests {
  /// Every Markdown file an attendee or a facilitator reads.
  static let documents = StepConventions.proseDocuments(under: Repository.root)

  /// Every `.swift` file under `folder`, as paths from the repository's root.
  static func swiftFiles(under folder: String) -> [String] {
    Repository.swiftFiles(under: folder)
  }

  /// Every line of Swift in the repository, trimmed.
  static let repositoryLines: Set<String> = {
    var lines: Set<String> = []
    for folder in ["Steps", "Solutions", "Tests"] {
      for file in swiftFiles(under: folder) {
        for line in ((try? Repository.read(file)) ?? "").split(separator: "\n") {
          lines.insert(line.trimmingCharacters(in: .whitespaces))
        }
      }
    }
    return lines
  }()

  static func read(_ path: String) -> String { (try? Repository.read(path)) ?? "" }

  // The two checks below are string work over every document and source: seconds of CPU on a
  // loaded machine. They run off the cooperative pool (two threads here), so that the checks of
  // other suites that need a pool thread at the same moment are not starved by them.

  @Test("Every line of Swift in the docs is in the repository")
  func codeBlocksAreRepositoryCode() async throws {
    let problems = try await offThePool {
      Self.documents.compactMap { document -> String? in
        let blocks = CodeBlock.all(in: Self.read(document)).filter { $0.language == "swift" }
        let missing = blocks.flatMap { block in
          block.lines.enumerated().compactMap { offset, line -> String? in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, text != CodeBlock.omission, !Self.repositoryLines.contains(text)
            else { return nil }
            return "  line \(block.line + 2 + offset): \(text)"
          }
        }
        guard !missing.isEmpty else { return nil }
        return """
          \(document) shows code that is not in the repository (copy it from the file it comes \
          from, mark the block ```swift from=<path>, and mark an omission with a line `// …`):
          \(missing.joined(separator: "\n"))
          """
      }
    }
    for problem in problems { Issue.record(Comment(rawValue: problem)) }
  }

  @Test("Every code block marked from=<file> is an excerpt of that file")
  func markedBlocksMatchTheirFiles() async throws {
    let (marked, problems) = try await offThePool { () -> (Int, [String]) in
      var marked = 0
      var problems: [String] = []
      for document in Self.documents {
        for block in CodeBlock.all(in: Self.read(document)) {
          guard let source = block.source else { continue }
          marked += 1
          guard let text = try? Repository.read(source) else {
            problems.append(
              "\(document):\(block.line + 1): from=\(source) names no file in the repository")
            continue
          }
          let file = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
          guard !block.isExcerpt(of: file) else { continue }
          problems.append(
            """
            \(document):\(block.line + 1): the block is not an excerpt of \(source). It must be \
            runs of the file's consecutive lines, in order, separated by lines `// …`; a run may \
            be dedented as a whole. Copy it again from the file.
            """)
        }
      }
      return (marked, problems)
    }
    for problem in problems { Issue.record(Comment(rawValue: problem)) }
    #expect(marked > 0, "no block is marked from=<file>: the check would check nothing")
  }

  /// GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens.
  static func anchor(_ heading: String) -> String {
    String(
      heading.lowercased().compactMap { character -> Character? in
        if character == " " { return "-" }
        if character.isLetter || character.isNumber || character == "-" || character == "_" {
          return character
        }
        return nil
      })
  }

  @Test("Every slide the tests and the docs point to exists, with its anchor")
  func slideReferencesResolve() throws {
    let pattern = try Regex(#"slides/([A-Za-z0-9_-]+\.md)(#[a-z0-9_-]+)?"#)
    var references: [String: Set<String>] = [:]
    for file in Self.swiftFiles(under: "Tests") + Self.documents {
      let text = Self.read(file)
      for match in text.matches(of: pattern) {
        references[String(text[match.range]), default: []].insert(file)
      }
    }
    #expect(references.count > 10, "found only \(references.count) slide references")
    for (reference, files) in references.sorted(by: { $0.key < $1.key }) {
      let parts = reference.split(separator: "#", maxSplits: 1).map(String.init)
      let exists = FileManager.default.fileExists(atPath: Repository.url(parts[0]).path)
      let from = files.sorted().joined(separator: ", ")
      #expect(exists, "\(reference) (in \(from)): \(parts[0]) does not exist")
      guard exists, parts.count == 2 else { continue }
      let anchors = Self.read(parts[0]).split(separator: "\n")
        .filter { $0.hasPrefix("#") }
        .map { Self.anchor($0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) }
      #expect(
        anchors.contains(parts[1]),
        "\(reference) (in \(from)): no heading in \(parts[0]) has the anchor #\(parts[1])")
    }
  }

  @Test("Every scoreboard line the docs show names a real check")
  func scoreboardLinesNameRealChecks() throws {
    let line = try Regex(
      #"\[(Step[0-9])\] [✔✓✘] [a-z]+( · [A-Za-z]+)? — (.+?)( \((expected|known gap).*)?$"#)
    var shown = 0
    for document in Self.documents {
      for text in Self.read(document).split(separator: "\n") {
        guard let match = try line.firstMatch(in: String(text)) else { continue }
        shown += 1
        let step = String(match.output[1].substring ?? "")
        let name = String(match.output[3].substring ?? "")
        let isACheck = CheckNameTests.checks[step, default: []].contains(name)
        #expect(
          isACheck, "\(document) shows a result for \(step)'s check '\(name)', which no check has")
      }
    }
    #expect(shown > 0, "no document shows a scoreboard line")
  }
}

/// A fenced code block of a Markdown document.
struct CodeBlock {
  /// The line that marks omitted lines inside an excerpt.
  static let omission = "// …"

  /// The fence's zero-based line number.
  let line: Int
  /// The first word of the fence's info string.
  let language: String
  /// The file named by `from=<path>` in the info string.
  let source: String?
  let lines: [String]

  /// The fenced blocks of `markdown`. A fence is a line of three or more backticks; an opening
  /// fence's info string has no backtick (so inline code that starts a line is no fence).
  static func all(in markdown: String) -> [CodeBlock] {
    var blocks: [CodeBlock] = []
    var open: (line: Int, ticks: Int, info: [Substring])?
    var lines: [String] = []
    for (index, line) in markdown.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      let ticks = trimmed.prefix { $0 == "`" }.count
      let rest = trimmed.dropFirst(ticks)
      if let fence = open {
        guard ticks >= fence.ticks, rest.isEmpty else {
          lines.append(String(line))
          continue
        }
        let source = fence.info.first { $0.hasPrefix("from=") }.map { String($0.dropFirst(5)) }
        blocks.append(
          CodeBlock(
            line: fence.line, language: fence.info.first.map(String.init) ?? "", source: source,
            lines: lines))
        open = nil
        lines = []
      } else if ticks >= 3, !rest.contains("`") {
        open = (index, ticks, rest.split(separator: " "))
      }
    }
    return blocks
  }

  /// Whether the block is runs of `file`'s consecutive lines, in order, separated by omission
  /// lines. A run may be dedented: the same number of leading spaces removed from each line.
  func isExcerpt(of file: [String]) -> Bool {
    var runs: [[String]] = [[]]
    for line in lines {
      if line.trimmingCharacters(in: .whitespaces) == Self.omission {
        runs.append([])
      } else {
        runs[runs.count - 1].append(Self.trailingTrimmed(line))
      }
    }
    runs = runs.filter { !$0.isEmpty }
    let dedented = Set(file.map { $0.prefix { $0 == " " }.count }).map { indent in
      file.map { line -> String? in
        let trimmed = Self.trailingTrimmed(line)
        if trimmed.isEmpty { return "" }
        guard trimmed.prefix(indent).allSatisfy({ $0 == " " }) else { return nil }
        return String(trimmed.dropFirst(indent))
      }
    }
    var position = 0
    for run in runs {
      let starts = dedented.compactMap { lines in
        (position..<max(position, lines.count - run.count + 1)).first { start in
          run.indices.allSatisfy { lines[start + $0] == run[$0] }
        }
      }
      guard let start = starts.min() else { return false }
      position = start + run.count
    }
    return !runs.isEmpty
  }

  private static func trailingTrimmed(_ line: String) -> String {
    String(line.reversed().drop { $0 == " " }.reversed())
  }
}
