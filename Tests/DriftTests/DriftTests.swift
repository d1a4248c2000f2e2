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
  typealias Pair = StepFolder

  static let rule =
    "Rule: a starter is its solution minus the lesson. Both expose one public API, and they "
    + "differ only in the files that carry a `// TODO:` (the files the step teaches)."

  @Test("There is a starter and a solution for every step")
  func everyStepHasBothSides() throws {
    let solutions = try Repository.names(in: "Solutions", ending: "").compactMap {
      StepFolder(folder: $0)
    }.sorted { $0.number < $1.number }
    #expect(solutions == Pair.all, "Steps/ and Solutions/ hold different steps")
    #expect(Pair.all.count >= 6, "found only \(Pair.all.count) steps in Steps/")
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
      // A stretch stub says that its task is not started (`StretchTask.notStarted()`), so that
      // the checks can tell an attendee who has not started from one whose answer is wrong.
      let stretchTasks = starter.components(separatedBy: "// TODO: stretch").count - 1
      let stubs = starter.components(separatedBy: "StretchTask.notStarted()").count - 1
      #expect(
        stubs == stretchTasks,
        """
        \(pair.starter)/\(name) has \(stretchTasks) `// TODO: stretch` and \(stubs) \
        `StretchTask.notStarted()` call(s): the stub of each stretch task calls it once, and \
        nothing else does.
        """)
      #expect(
        !solution.contains("StretchTask"),
        """
        \(pair.solution)/\(name) mentions StretchTask: a solution does its stretch task, and only \
        a starter's stub says that it is not started.
        """)
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

  /// The compiler's target arguments, asked once for all steps.
  static let platform = Task { try await Toolchain.platformArguments() }

  /// A known limitation, not a failure: without the tool, this check is reported as cancelled
  /// with the reason and the fix (a cancelled test case of a parameterized test prints nothing).
  @Test("swift-synthesize-interface is there to read the public APIs")
  func interfaceToolIsThere() async throws {
    if case .missing(let explanation) = await InterfaceTool.thisRun.value {
      try Test.cancel(Comment(rawValue: explanation))
    }
  }

  @Test(
    "The starter and its solution expose the same public API",
    .enabled("swift-synthesize-interface is missing: see the check that looks for it") {
      await InterfaceTool.thisRun.value.tool != nil
    }, arguments: Pair.all)
  func samePublicAPI(_ pair: Pair) async throws {
    let tool = try #require(await InterfaceTool.thisRun.value.tool)
    let base = try await Self.platform.value + ["-I", try Toolchain.modulesDirectory().path]
    var interfaces: [(module: String, text: String)] = []
    for module in [pair.module, "\(pair.module)Solution"] {
      let output = try await Toolchain.run(tool, base + ["-module-name", module])
      try #require(
        output.status == 0, "swift-synthesize-interface \(module) failed:\n\(output.standardError)")
      interfaces.append((module, output.standardOutput))
    }
    func differences(under lesson: PublicAPI.Lesson) -> (missing: [String], extra: [String]) {
      let (starter, solution) = (
        PublicAPI.declarations(interfaces[0].text, module: interfaces[0].module, lesson: lesson),
        PublicAPI.declarations(interfaces[1].text, module: interfaces[1].module, lesson: lesson)
      )
      guard starter != solution.filter({ !lesson.solutionOnly.contains($0) }) else {
        return ([], solution.filter { !starter.contains($0) })
      }
      return (
        starter.filter { !solution.contains($0) }, solution.filter { !starter.contains($0) }
      )
    }

    let lesson = PublicAPI.lessons[pair.module] ?? PublicAPI.Lesson()
    let (missing, extra) = differences(under: lesson)
    let same = missing.isEmpty && Set(extra) == lesson.solutionOnly
    #expect(
      same,
      """
      \(pair.module) and \(pair.module)Solution expose different public APIs.
      Only in the starter: \(missing.isEmpty ? "nothing" : "\n  " + missing.joined(separator: "\n  "))
      Only in the solution: \(extra.isEmpty ? "nothing" : "\n  " + extra.joined(separator: "\n  "))
      Allowed, as the lesson itself: \(lesson.summary)
      \(Self.rule)
      """)
    // Every allowance must still be needed: without it, the interfaces differ.
    for (allowance, narrower) in lesson.eachAllowanceDropped {
      let (missing, extra) = differences(under: narrower)
      let needed = !missing.isEmpty || Set(extra) != narrower.solutionOnly
      #expect(
        needed,
        """
        \(pair.module): the allowance for \(allowance) is no longer needed. Remove it from \
        PublicAPI.lessons, so that the comparison stays as strict as the lesson allows.
        """)
    }
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

    /// The lesson without one of its isolation or Sendable allowances, each with its name.
    var eachAllowanceDropped: [(String, Lesson)] {
      var variants: [(String, Lesson)] = isolation.map { actor in
        var narrower = self
        narrower.isolation.removeAll { $0 == actor }
        return ("the @\(actor) attribute", narrower)
      }
      if sendability {
        var narrower = self
        narrower.sendability = false
        variants.append(("Sendable conformances", narrower))
      }
      return variants
    }

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
    "Step3": Lesson(isolation: ["CoreDataActor"]),
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
