import Foundation
import Testing
import WorkshopSupport

/// Starters and solutions cannot drift apart: an attendee who compares the two must see the
/// lesson and nothing else, and the checks call both through one public API.
///
/// These checks hold for the untouched starters, so they run in verify mode only: an attendee's
/// solved starter differs from the reference in its own ways, and that is fine.
@Suite(
  "Starters and solutions differ only by their lessons",
  .enabled(if: isVerifyMode, "checks the untouched starters: run with WORKSHOP_VERIFY=1"))
struct DriftTests {
  /// One step's two folders, as the arguments of the checks.
  struct Pair: Sendable, CustomTestStringConvertible {
    /// The module names, e.g. `Step4` and `Step4Solution`.
    let module: String
    /// The folder under `Steps/` and `Solutions/`, e.g. `Step4-CustomExecutor`.
    let folder: String
    var starter: String { "Steps/\(folder)" }
    var solution: String { "Solutions/\(folder)" }
    var testDescription: String { folder }

    static let all: [Pair] = ((try? Repository.names(in: "Solutions", ending: "")) ?? [])
      .filter { $0.hasPrefix("Step") }
      .map { Pair(module: String($0.prefix { $0 != "-" }), folder: $0) }
  }

  static let rule =
    "Rule: a starter is its solution minus the lesson. Both expose one public API, and they "
    + "differ only in the files that carry a `// TODO:` (the files the step teaches)."

  @Test("There is a starter and a solution for every step")
  func everyStepHasBothSides() throws {
    let starters = try Repository.names(in: "Steps", ending: "").filter { $0.hasPrefix("Step") }
    #expect(starters == Pair.all.map(\.folder), "Steps/ and Solutions/ hold different steps")
    #expect(Pair.all.count >= 6, "found only \(Pair.all.count) steps in Solutions/")
  }

  @Test("The starter differs from its solution only in the files with a TODO", arguments: Pair.all)
  func differencesAreTheTaughtFiles(_ pair: Pair) throws {
    let starterFiles = try Repository.names(in: pair.starter, ending: ".swift")
    let solutionFiles = try Repository.names(in: pair.solution, ending: ".swift")
    #expect(
      starterFiles == solutionFiles,
      """
      \(pair.starter) has \(starterFiles), \(pair.solution) has \(solutionFiles).
      \(Self.rule)
      """)
    var taught: [String] = []
    var differing: [String] = []
    for name in Set(starterFiles).intersection(solutionFiles).sorted() {
      let starter = try Repository.read("\(pair.starter)/\(name)")
      let solution = try Repository.read("\(pair.solution)/\(name)")
      if starter.contains("// TODO:") { taught.append(name) }
      if starter != solution { differing.append(name) }
      #expect(
        !solution.contains("// TODO:"), "\(pair.solution)/\(name) still has a `// TODO:`")
    }
    #expect(!taught.isEmpty, "\(pair.starter) has no `// TODO:`: what does the attendee edit?")
    let differOnlyWhereTaught = taught == differing
    #expect(
      differOnlyWhereTaught,
      """
      In \(pair.folder), the files with a TODO are \(taught) but the files that differ from the \
      solution are \(differing).
      \(Self.rule) Hint: move the change into a taught file, or mark where the attendee edits.
      """)
    let hints = (try? Repository.read("\(pair.starter)/HINTS.md")) ?? ""
    let listed = hints.split(separator: "\n").first { $0.hasPrefix("Files you edit:") }
      .map {
        $0.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map {
          String($0.element)
        }
      }
    let hintsAgree = listed == taught
    #expect(
      hintsAgree,
      "\(pair.starter)/HINTS.md lists the files to edit as \(listed.map { "\($0)" } ?? "nothing (no line `Files you edit:`)"); the TODOs are in \(taught)"
    )
  }

  @Test("The starter and its solution expose the same public API", arguments: Pair.all)
  func samePublicAPI(_ pair: Pair) async throws {
    let tool = try Toolchain.tool("swift-synthesize-interface")
    let base =
      try await Toolchain.platformArguments() + ["-I", try Toolchain.modulesDirectory().path]
    let lesson = PublicAPI.lessons[pair.module] ?? PublicAPI.Lesson()
    var interfaces: [[String]] = []
    for module in [pair.module, "\(pair.module)Solution"] {
      let output = try await Toolchain.run(tool, base + ["-module-name", module])
      try #require(
        output.status == 0, "swift-synthesize-interface \(module) failed:\n\(output.standardError)")
      interfaces.append(
        PublicAPI.declarations(output.standardOutput, module: module, lesson: lesson))
    }
    let (starter, solution) = (interfaces[0], interfaces[1])
    let extra = solution.filter { !starter.contains($0) }
    let missing = starter.filter { !solution.contains($0) }
    #expect(
      Set(extra) == lesson.solutionOnly && missing.isEmpty
        && starter
          == solution.filter {
            !lesson.solutionOnly.contains($0)
          },
      """
      \(pair.module) and \(pair.module)Solution expose different public APIs.
      Only in the starter: \(missing.isEmpty ? "nothing" : "\n  " + missing.joined(separator: "\n  "))
      Only in the solution: \(extra.isEmpty ? "nothing" : "\n  " + extra.joined(separator: "\n  "))
      Allowed, as the lesson itself: \(lesson.summary)
      \(Self.rule)
      """)
  }
}

/// A module's public declarations, as `swift-synthesize-interface` prints them, reduced to what
/// a starter and its solution must share.
enum PublicAPI {
  /// What a step's lesson changes in the public API, so the comparison can set it aside.
  struct Lesson {
    /// Global-actor attributes the step adds (`@CoreDataActor`).
    var isolation: [String] = []
    /// Whether the step changes a type's Sendable conformance.
    var sendability = false
    /// Declarations only the solution has: protocol requirements the step implements, whose
    /// default implementations the starter uses.
    var solutionOnly: Set<String> = []

    var summary: String {
      var parts = isolation.map { "the @\($0) attribute" }
      if sendability { parts.append("Sendable conformances") }
      parts += solutionOnly.sorted().map { "`\($0)` in the solution" }
      return parts.isEmpty ? "nothing" : parts.joined(separator: "; ")
    }
  }

  static let executorWitnesses: Set<String> = [
    "nonisolated public var unownedExecutor: UnownedSerialExecutor { get }",
    "public func checkIsolated()",
    "public func isIsolatingCurrentContext() -> Bool?",
  ]

  static let lessons: [String: Lesson] = [
    "Step2": Lesson(sendability: true),
    "Step3": Lesson(isolation: ["CoreDataActor"], sendability: true),
    "Step4": Lesson(solutionOnly: executorWitnesses),
    "Step6": Lesson(solutionOnly: executorWitnesses),
  ]

  /// The declarations of `interface` with doc comments, imports, blank lines, the module's own
  /// name and the lesson's attributes and conformances removed.
  static func declarations(_ interface: String, module: String, lesson: Lesson) -> [String] {
    interface.split(separator: "\n").compactMap { line -> String? in
      var text = line.trimmingCharacters(in: .whitespaces)
      if text.isEmpty || text.hasPrefix("///") || text.hasPrefix("import ") { return nil }
      text = text.replacingOccurrences(of: "\(module).", with: "")
      for actor in lesson.isolation {
        text = text.replacingOccurrences(of: "@\(actor) ", with: "")
      }
      if lesson.sendability {
        for conformance in [", Sendable", " : @unchecked Sendable", " : Sendable"] {
          text = text.replacingOccurrences(of: conformance, with: "")
        }
      }
      return text
    }
  }
}
