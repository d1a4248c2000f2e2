import Foundation
import Testing
import WorkshopEnvironment

// Compile probes
// ==============
//
// Some lessons are compiler errors: "setting `name` from a nonisolated function does not
// compile". A probe is a small Swift file, kept out of every test target (`exclude:` in
// Package.swift), that states on its first lines what the compiler must do with it:
//
//     // PROBE: compiles
//     // PROBE: fails: can not be mutated | nonisolated context
//     // PROBE: warns: Sendable | unavailable
//
// `compiles` means without a warning as well: Apple imports Core Data `@preconcurrency`, which
// turns some errors into warnings, so a probe that only compiles proves less than it seems.
// `warns` is for the lessons the compiler itself gives only as a warning.
//
// It imports the code under test as `Subject`; the runner compiles it once per side, with
// `-module-alias Subject=Step3` (yours) or `Subject=Step3Solution`, against the modules the
// test build already made, with `-emit-sil`: region-based isolation ("sending … risks causing
// data races") is diagnosed after type checking, which plain `-typecheck` never reaches. Match
// stable phrases, not whole messages: the wording changes between compilers. And keep one
// lesson per probe: a type error stops the compiler before the isolation diagnostics run.

/// One probe file and what it expects of the compiler.
public struct CompileProbe: Sendable, CustomTestStringConvertible {
  public enum Expectation: Sendable, Equatable {
    /// Compiles without an error or a warning.
    case compiles
    /// Fails with an error whose text contains every phrase (case-insensitive).
    case fails(mentioning: [String])
    /// Compiles, with a warning whose text contains every phrase (case-insensitive).
    case warns(mentioning: [String])
  }

  /// The file name without `.swift`.
  public let name: String
  /// The path from the repository's root.
  public let path: String
  public let expectation: Expectation
  let url: URL

  public var testDescription: String { name }
}

/// What the compiler did with one probe.
public struct ProbeOutcome: Sendable {
  public let probe: CompileProbe
  public let compiled: Bool
  /// The compiler's error lines, as it wrote them.
  public let errors: [String]
  /// The compiler's warning lines, as it wrote them.
  public let warnings: [String]
  public let seconds: Double

  /// Whether the compiler did what the probe expects.
  public var matches: Bool {
    switch probe.expectation {
    case .compiles:
      return compiled && warnings.isEmpty
    case .fails(let phrases):
      return !compiled && Self.lines(errors, mention: phrases)
    case .warns(let phrases):
      return compiled && Self.lines(warnings, mention: phrases)
    }
  }

  private static func lines(_ lines: [String], mention phrases: [String]) -> Bool {
    let text = lines.joined(separator: "\n").lowercased()
    return phrases.allSatisfy { text.contains($0.lowercased()) }
  }

  /// A teaching description of a mismatch: what was expected, and the compiler's own words.
  public var mismatch: String {
    let diagnostics = errors + warnings
    let said =
      diagnostics.isEmpty ? "(no errors, no warnings)" : diagnostics.joined(separator: "\n    ")
    switch probe.expectation {
    case .compiles:
      return "\(probe.path) must compile without a warning, but the compiler said:\n    \(said)"
    case .warns(let phrases):
      let wanted = phrases.map { "\"\($0)\"" }.joined(separator: ", ")
      return compiled
        ? "\(probe.path) must compile with a warning mentioning \(wanted), but the compiler "
          + "said:\n    \(said)"
        : "\(probe.path) must compile (with a warning mentioning \(wanted)), but the compiler "
          + "said:\n    \(said)"
    case .fails(let phrases):
      let wanted = phrases.map { "\"\($0)\"" }.joined(separator: ", ")
      return compiled
        ? "\(probe.path) must not compile (an error mentioning \(wanted)), but it compiled."
        : "\(probe.path) must fail with an error mentioning \(wanted), but the compiler said:\n"
          + "    \(said)"
    }
  }
}

public enum ProbeError: Error, CustomStringConvertible {
  case badHeader(String)

  public var description: String {
    switch self {
    case .badHeader(let path):
      "\(path) must start with `// PROBE: compiles`, `// PROBE: fails: phrase | phrase` or "
        + "`// PROBE: warns: phrase | phrase`."
    }
  }
}

public enum ProbeRunner {
  /// The probes in `folder` (a path from the repository's root), sorted by name.
  public static func probes(in folder: String) throws -> [CompileProbe] {
    try Repository.names(in: folder, ending: ".swift")
      .map { name in
        let url = Repository.url("\(folder)/\(name)")
        let path = "\(folder)/\(name)"
        let header = try String(contentsOf: url, encoding: .utf8)
          .split(separator: "\n").first { $0.hasPrefix("// PROBE:") }
          .map { $0.dropFirst("// PROBE:".count).trimmingCharacters(in: .whitespaces) }
        let expectation: CompileProbe.Expectation
        if header == "compiles" {
          expectation = .compiles
        } else if let header, header.hasPrefix("fails:") {
          expectation = .fails(mentioning: phrases(header.dropFirst("fails:".count)))
        } else if let header, header.hasPrefix("warns:") {
          expectation = .warns(mentioning: phrases(header.dropFirst("warns:".count)))
        } else {
          throw ProbeError.badHeader(path)
        }
        return CompileProbe(
          name: String(name.dropLast(".swift".count)), path: path, expectation: expectation,
          url: url)
      }
  }

  private static func phrases(_ list: Substring) -> [String] {
    list.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }

  /// Compiles every probe against `module`, several at once, and returns the outcomes by name.
  /// `flags` are added to the compiler's arguments (Xcode 26's defaults, for example).
  public static func run(
    _ probes: [CompileProbe], against module: String, flags: [String] = []
  ) async throws -> [String: ProbeOutcome] {
    let compiler = try Toolchain.swiftc()
    let modules = try Toolchain.modulesDirectory()
    return try await withThrowingTaskGroup(of: ProbeOutcome.self) { group in
      for probe in probes {
        group.addTask {
          try await compile(
            probe, module: module, compiler: compiler, modules: modules, flags: flags)
        }
      }
      var outcomes: [String: ProbeOutcome] = [:]
      for try await outcome in group { outcomes[outcome.probe.name] = outcome }
      return outcomes
    }
  }

  private static func compile(
    _ probe: CompileProbe, module: String, compiler: URL, modules: URL, flags: [String]
  ) async throws -> ProbeOutcome {
    let start = Date()
    let output = try await Toolchain.run(
      compiler,
      [
        "-emit-sil", "-o", "/dev/null", "-swift-version", "6", "-parse-as-library",
        "-module-name", "Probe", "-I", modules.path, "-module-alias", "Subject=\(module)",
        probe.url.path,
      ] + flags)
    // The compiler's own lines (`file:line:column: error: …`), not the excerpts it draws.
    let lines = output.standardError.split(separator: "\n").map(String.init)
      .filter { $0.hasPrefix("/") }
    return ProbeOutcome(
      probe: probe, compiled: output.status == 0,
      errors: lines.filter { $0.contains(": error: ") },
      warnings: lines.filter { $0.contains(": warning: ") },
      seconds: Date().timeIntervalSince(start))
  }
}

/// Compiles the probe `name` from `folder` against `module`, and records a teaching failure with
/// the compiler's own words when it does not do what the probe expects.
public func expectProbe(
  _ name: String, in folder: String, against module: String, lesson: Lesson,
  sourceLocation: SourceLocation = #_sourceLocation
) async throws {
  let probes = try ProbeRunner.probes(in: folder).filter { $0.name == name }
  try require(probes.count == 1, observed: "no probe file \(folder)/\(name).swift", lesson: lesson)
  let outcomes = try await ProbeRunner.run(probes, against: module)
  guard let outcome = outcomes[name] else { return }
  expect(
    outcome.matches, observed: outcome.mismatch, lesson: lesson, sourceLocation: sourceLocation)
}

/// Runs the probe `name` as one side of a check of `step`. The check is the running test, which
/// is named `probe <name>: <what the probe shows>`, so that its scoreboard line, its test and
/// the docs say the same words.
public func examProbe(
  _ name: String, in folder: String, against module: String, side: ExamSide, step: ExamStep,
  starter: StarterOutcome = .passesOnStarter, lesson: Lesson,
  isolation: isolated (any Actor)? = #isolation, sourceLocation: SourceLocation = #_sourceLocation
) async {
  let title = Test.current?.displayName ?? "probe \(name)"
  if !title.hasPrefix("probe \(name): ") {
    Issue.record(
      Comment(
        rawValue: "Harness: the test '\(title)' runs the probe \(name); name it 'probe \(name): …'"),
      sourceLocation: sourceLocation)
  }
  // An attendee's plain run compiles each probe against their side only: the solution's
  // side says nothing new about their code, and each probe is a run of the compiler, the
  // largest part of a step's time. Verify mode, and a run that names the side, compile both.
  if side == .solution, !isVerifyMode,
    WorkshopEnvironment.value(WorkshopEnvironment.side) == nil
  {
    return
  }
  let check = step.check(title, starter, likelyCauseOfHang: "a compiler that does not finish")
  let subject = "\(side.rawValue) · \(name)"
  // Without the build's modules no probe can run, on either side: said once, not per probe.
  guard builtModulesAreReady(for: check, label: subject, sourceLocation: sourceLocation) else {
    return
  }
  await exam(side, check, subject: subject, sourceLocation: sourceLocation) {
    try await expectProbe(name, in: folder, against: module, lesson: lesson)
  }
}
