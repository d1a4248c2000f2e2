import Foundation
import Testing

// Compile probes
// ==============
//
// Some lessons are compiler errors: "setting `name` from a nonisolated function does not
// compile". A probe is a small Swift file, kept out of every test target (`exclude:` in
// Package.swift), that states on its first lines what the compiler must do with it:
//
//     // PROBE: compiles
//     // PROBE: fails: can not be mutated | nonisolated context
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
    case compiles
    /// Fails with an error whose text contains every phrase (case-insensitive).
    case fails(mentioning: [String])
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
  public let seconds: Double

  /// Whether the compiler did what the probe expects.
  public var matches: Bool {
    switch probe.expectation {
    case .compiles:
      return compiled
    case .fails(let phrases):
      let text = errors.joined(separator: "\n").lowercased()
      return !compiled && phrases.allSatisfy { text.contains($0.lowercased()) }
    }
  }

  /// A teaching description of a mismatch: what was expected, and the compiler's own words.
  public var mismatch: String {
    let said = errors.isEmpty ? "(no errors)" : errors.joined(separator: "\n    ")
    switch probe.expectation {
    case .compiles:
      return "\(probe.path) must compile, but the compiler said:\n    \(said)"
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
  case noCompiler
  case noModules(String)
  case badHeader(String)

  public var description: String {
    switch self {
    case .noCompiler:
      "No swiftc found: set WORKSHOP_SWIFTC to the compiler the tests were built with."
    case .noModules(let from):
      "No built modules (a `Modules` folder with ManagedObjectCore.swiftmodule) above \(from)."
    case .badHeader(let path):
      "\(path) must start with `// PROBE: compiles` or `// PROBE: fails: phrase | phrase`."
    }
  }
}

public enum ProbeRunner {
  /// The probes in `folder` (a path from the repository's root), sorted by name.
  public static func probes(
    in folder: String, testFile: StaticString = #filePath
  ) throws -> [CompileProbe] {
    let root = try repositoryRoot(from: "\(testFile)")
    let directory = root.appendingPathComponent(folder)
    return try FileManager.default.contentsOfDirectory(atPath: directory.path)
      .filter { $0.hasSuffix(".swift") }.sorted()
      .map { name in
        let url = directory.appendingPathComponent(name)
        let path = "\(folder)/\(name)"
        let header = try String(contentsOf: url, encoding: .utf8)
          .split(separator: "\n").first { $0.hasPrefix("// PROBE:") }
          .map { $0.dropFirst("// PROBE:".count).trimmingCharacters(in: .whitespaces) }
        let expectation: CompileProbe.Expectation
        if header == "compiles" {
          expectation = .compiles
        } else if let header, header.hasPrefix("fails:") {
          let phrases = header.dropFirst("fails:".count).split(separator: "|")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
          expectation = .fails(mentioning: phrases)
        } else {
          throw ProbeError.badHeader(path)
        }
        return CompileProbe(
          name: String(name.dropLast(".swift".count)), path: path, expectation: expectation,
          url: url)
      }
  }

  /// Compiles every probe against `module`, several at once, and returns the outcomes by name.
  public static func run(
    _ probes: [CompileProbe], against module: String
  ) async throws -> [String: ProbeOutcome] {
    let compiler = try swiftc()
    let modules = try modulesDirectory()
    return try await withThrowingTaskGroup(of: ProbeOutcome.self) { group in
      for probe in probes {
        group.addTask {
          try await compile(probe, module: module, compiler: compiler, modules: modules)
        }
      }
      var outcomes: [String: ProbeOutcome] = [:]
      for try await outcome in group { outcomes[outcome.probe.name] = outcome }
      return outcomes
    }
  }

  private static func compile(
    _ probe: CompileProbe, module: String, compiler: URL, modules: URL
  ) async throws -> ProbeOutcome {
    let start = Date()
    let process = Process()
    process.executableURL = compiler
    process.arguments = [
      "-emit-sil", "-o", "/dev/null", "-swift-version", "6", "-parse-as-library",
      "-module-name", "Probe", "-I", modules.path, "-module-alias", "Subject=\(module)",
      probe.url.path,
    ]
    // A file, not a pipe: a pipe's buffer fills up and blocks a talkative compiler.
    let log = FileManager.default.temporaryDirectory
      .appendingPathComponent("probe-\(module)-\(probe.name)-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let errors = try FileHandle(forWritingTo: log)
    defer {
      try? errors.close()
      try? FileManager.default.removeItem(at: log)
    }
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    // The compiler's own error lines (`file:line:column: error: …`), not the excerpts it draws.
    let errorLines = output.split(separator: "\n").map(String.init)
      .filter { $0.hasPrefix("/") && $0.contains(": error: ") }
    return ProbeOutcome(
      probe: probe, compiled: status == 0, errors: errorLines,
      seconds: Date().timeIntervalSince(start))
  }

  // MARK: - Finding the compiler and the built modules

  static func repositoryRoot(from file: String) throws -> URL {
    var url = URL(fileURLWithPath: file)
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
    {
      let parent = url.deletingLastPathComponent()
      guard parent.path != url.path else { throw CocoaError(.fileNoSuchFile) }
      url = parent
    }
    return url
  }

  /// `WORKSHOP_SWIFTC`, else `xcrun --find swiftc` on macOS, else `swiftc` on the `PATH`.
  static func swiftc() throws -> URL {
    let environment = ProcessInfo.processInfo.environment
    if let explicit = environment["WORKSHOP_SWIFTC"] { return URL(fileURLWithPath: explicit) }
    #if os(macOS)
      let xcrun = Process()
      xcrun.executableURL = URL(fileURLWithPath: "/usr/bin/xcrun")
      xcrun.arguments = ["--find", "swiftc"]
      let output = Pipe()
      xcrun.standardOutput = output
      try? xcrun.run()
      xcrun.waitUntilExit()
      let path = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      if xcrun.terminationStatus == 0, !path.isEmpty { return URL(fileURLWithPath: path) }
    #endif
    for directory in (environment["PATH"] ?? "").split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw ProbeError.noCompiler
  }

  /// The `Modules` folder of the build that made this test binary.
  static func modulesDirectory() throws -> URL {
    let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var directory = executable.deletingLastPathComponent()
    while directory.path != "/" {
      let modules = directory.appendingPathComponent("Modules")
      let core = modules.appendingPathComponent("ManagedObjectCore.swiftmodule")
      if FileManager.default.fileExists(atPath: core.path) { return modules }
      directory.deleteLastPathComponent()
    }
    throw ProbeError.noModules(executable.path)
  }
}

/// Compiles the probe `name` from `folder` against `module`, and records a teaching failure with
/// the compiler's own words when it does not do what the probe expects.
public func expectProbe(
  _ name: String, in folder: String, against module: String, lesson: Lesson,
  testFile: StaticString = #filePath, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
  let probes = try ProbeRunner.probes(in: folder, testFile: testFile).filter { $0.name == name }
  try require(probes.count == 1, observed: "no probe file \(folder)/\(name).swift", lesson: lesson)
  let outcomes = try await ProbeRunner.run(probes, against: module)
  guard let outcome = outcomes[name] else { return }
  expect(
    outcome.matches, observed: outcome.mismatch, lesson: lesson, sourceLocation: sourceLocation)
}
