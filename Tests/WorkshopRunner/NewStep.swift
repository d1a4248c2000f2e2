import Foundation
import WorkshopConventions

/// `swift run workshop new-step N Name`, for maintainers: a step that builds, keeps every
/// convention, and passes every gate but one: `StepConventionTests` says it has no lesson yet,
/// until its files no longer hold the template's marker. The files come from
/// `Tests/NewStepTemplate`, where each `*.template` is a file of the new step with its names left
/// as `{{N}}`, `{{Name}}`, `{{folder}}` …; the documents that list the steps get an entry each
/// (`NewStepEdits`).
package struct NewStep: Equatable, Sendable {
  package let number: Int
  /// The step's name in UpperCamelCase, e.g. `BackgroundImporter`: its folder is
  /// `Step7-BackgroundImporter`, and the template's type is named after it.
  package let name: String
  /// The earlier step whose solution the new one imports instead of copying its files.
  package let buildsOn: Int?

  package static let templates = "Tests/NewStepTemplate"

  package init(number: Int, name: String, buildsOn: Int? = nil) throws(RunnerError) {
    guard let first = name.unicodeScalars.first, ("A"..."Z").contains(first),
      name.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) })
    else {
      throw RunnerError(
        "The name '\(name)' is not UpperCamelCase (ASCII letters and digits, a capital first), "
          + "as the other folders' names are: e.g. BackgroundImporter.")
    }
    if let buildsOn, !(1..<number).contains(buildsOn) {
      throw RunnerError(
        "Step \(number) can build on an earlier step only, not on Step \(buildsOn).")
    }
    self.number = number
    self.name = name
    self.buildsOn = buildsOn
  }

  package var folder: String { "Step\(number)-\(name)" }

  /// The name's words, the first capitalized and an acronym kept: `Background importer`,
  /// `Object ID refetch`.
  package var title: String {
    let characters = Array(name)
    var words: [String] = []
    for (index, character) in characters.enumerated() {
      let previous = index > 0 ? characters[index - 1] : nil
      let next = index + 1 < characters.count ? characters[index + 1] : nil
      // A word starts at a capital after a small letter or a digit, or at the last capital of
      // an acronym that a small letter follows ("IDRefetch": "ID", "Refetch").
      let starts =
        words.isEmpty
        || character.isUppercase
          && (previous?.isUppercase == false || next?.isLowercase == true)
      if starts { words.append("") }
      words[words.count - 1].append(character)
    }
    return words.enumerated().map { index, word in
      index == 0 || word.allSatisfy(\.isUppercase) && word.count > 1 ? word : word.lowercased()
    }.joined(separator: " ")
  }

  package var slug: String { title.lowercased().replacingOccurrences(of: " ", with: "-") }

  package var twoDigits: String { number < 10 ? "0\(number)" : "\(number)" }

  package var deck: String { "slides/\(twoDigits)-\(slug).md" }

  /// The heading of the step's sections in the guide and the links.
  package var heading: String { "## Step \(number) — \(title)" }

  /// What each `{{…}}` of the templates stands for.
  package var placeholders: [String: String] {
    [
      "N": "\(number)", "NN": twoDigits, "Name": name, "Title": title,
      "title": title.lowercased(), "slug": slug, "folder": folder, "deck": deck,
      // GitHub's anchor of the heading: lower case, spaces to hyphens, the dash dropped.
      "linksAnchor": "step-\(number)--\(slug)",
      "importEarlier": buildsOn.map {
        "// Step \($0)'s solution, for the code this step uses as it is, instead of a copy (the\n"
          + "// step's `buildsOn` in Package.swift; with neither, it uses none).\n"
          + "import Step\($0)Solution"
      } ?? "",
    ]
  }

  package func fill(_ template: String) -> String {
    placeholders.reduce(template) { $0.replacingOccurrences(of: "{{\($1.key)}}", with: $1.value) }
  }

  /// Writes the step into `workspace` and says what it did and what is left to do.
  package static func run(
    number: Int, name: String, buildsOn: Int? = nil, in workspace: Workspace
  ) throws(RunnerError) -> Int32 {
    let step = try NewStep(number: number, name: name, buildsOn: buildsOn)
    let existing = workspace.steps()
    let next = (existing.last?.number ?? 0) + 1
    guard number == next else {
      throw RunnerError(
        "Step \(number) cannot be added: the steps are numbered in order, so the new one is "
          + "Step \(next).")
    }
    let files = try step.files(in: workspace)
    let edits = NewStepEdits(step: step, stepsBefore: existing.count)
    // Every edit is computed before anything is written: a document that has moved on from
    // what the edits expect stops the command with nothing changed.
    var changed: [(String, String)] = []
    for (path, edit) in edits.documents(in: workspace) {
      let before = try read(path, in: workspace)
      let after = try edit(before)
      if after != before { changed.append((path, after)) }
    }
    for (path, text) in files + changed { try write(text, to: path, in: workspace) }
    let formatted = format(
      (files + changed).map(\.0).filter { $0.hasSuffix(".swift") }, in: workspace)
    Console.say(
      """
      Step \(number) (\(step.folder)) is in place, with the template's placeholder lesson.
      Written:
      \(files.map { "  \($0.0)" }.joined(separator: "\n"))
      Edited:
      \(changed.map { "  \($0.0)" }.joined(separator: "\n"))

      \(formatted)
      It builds and passes every check but one: StepConventionTests says Step \(number) has no
      lesson yet while a file still holds "\(StepConventions.noLessonYet)". Next:
        WORKSHOP_VERIFY=1 swift test --filter Step\(number)Tests
        swift test --filter DocsTests
      then write the lesson over the template: Tests/ADDING-A-STEP.md says what the command
      did not do.
      """)
    return 0
  }

  /// The template's files, filled in, with their paths from the root.
  package func files(in workspace: Workspace) throws(RunnerError) -> [(String, String)] {
    let base = workspace.url(Self.templates)
    guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
    else { throw RunnerError("There is no \(Self.templates) to make the step from.") }
    var files: [(String, String)] = []
    for case let url as URL in walker where url.pathExtension == "template" {
      let relative = String(url.path.dropFirst(base.path.count + 1).dropLast(".template".count))
      let path = fill(relative)
      if FileManager.default.fileExists(atPath: workspace.url(path).path) {
        throw RunnerError("\(path) exists already: nothing was written.")
      }
      files.append(
        (path, fill(try Self.read("\(Self.templates)/\(relative).template", in: workspace))))
    }
    return files.sorted { $0.0 < $1.0 }
  }

  /// Formats the Swift files written with the repository's configuration, as CI lints them: a
  /// long step name makes long lines. Says what it did, or how to do it by hand.
  static func format(_ paths: [String], in workspace: Workspace) -> String {
    let arguments = ["format", "--in-place", "--configuration", ".swift-format"] + paths
    let result = try? Shell.run("swift", arguments, in: workspace.root)
    if result?.status == 0 { return "Formatted with swift format." }
    return "Not formatted (swift format failed): run `swift \(arguments.joined(separator: " "))`."
  }

  static func read(_ path: String, in workspace: Workspace) throws(RunnerError) -> String {
    do {
      return try String(contentsOf: workspace.url(path), encoding: .utf8)
    } catch {
      throw RunnerError("Cannot read \(path): \(error.localizedDescription)")
    }
  }

  static func write(_ text: String, to path: String, in workspace: Workspace) throws(RunnerError) {
    let url = workspace.url(path)
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: url, atomically: true, encoding: .utf8)
    } catch {
      throw RunnerError("Cannot write \(path): \(error.localizedDescription)")
    }
  }
}
