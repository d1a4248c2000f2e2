import Foundation
import WorkshopBuildLayout
import WorkshopEnvironment

/// The toolchain that built the tests: where its tools are, where the build put its modules, and
/// how to run a tool so that it leaves nothing behind.
///
/// Compile probes run `swiftc` on probe files; the drift checks run `swift-synthesize-interface`
/// on the step modules. Both read the modules this very test build made.
public enum Toolchain {
  public enum Failure: Error, CustomStringConvertible {
    case noCompiler
    case noModules(String)

    public var description: String {
      switch self {
      case .noCompiler:
        "No swiftc found: set WORKSHOP_SWIFTC to the compiler the tests were built with."
      case .noModules(let explanation):
        explanation
      }
    }
  }

  /// `WORKSHOP_SWIFTC`, else `xcrun --find swiftc` on macOS, else `swiftc` on the `PATH`.
  public static func swiftc() throws -> URL {
    let environment = ProcessInfo.processInfo.environment
    if let explicit = WorkshopEnvironment.value(WorkshopEnvironment.swiftc) {
      return URL(fileURLWithPath: explicit)
    }
    #if os(macOS)
      if let path = try? xcrun(["--find", "swiftc"]) { return URL(fileURLWithPath: path) }
    #endif
    for directory in (environment["PATH"] ?? "").split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swiftc")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw Failure.noCompiler
  }

  /// Arguments that tell a frontend tool which platform to read modules for: the target triple,
  /// and on macOS the SDK.
  public static func platformArguments() async throws -> [String] {
    let info = try await run(swiftc(), ["-print-target-info"])
    let json = try JSONSerialization.jsonObject(with: Data(info.standardOutput.utf8))
    let target = (json as? [String: Any])?["target"] as? [String: Any]
    guard let triple = target?["triple"] as? String else { throw Failure.noCompiler }
    var arguments = ["-target", triple]
    #if os(macOS)
      arguments += ["-sdk", try xcrun(["--show-sdk-path"])]
    #endif
    return arguments
  }

  /// The folder with the modules of the build that made this test binary, for `-I`: SwiftPM's
  /// `Modules` folder (native build system), or the products folder itself (Swift Build, Xcode),
  /// as ``BuiltModules`` finds it.
  public static func modulesDirectory() throws -> URL {
    switch BuiltModules.thisRun {
    case .found(let folder, _):
      return URL(fileURLWithPath: folder, isDirectory: true)
    case .missing:
      throw Failure.noModules(BuiltModules.thisRun.explanation ?? "No built modules.")
    }
  }

  /// What a tool printed, and how it ended.
  public struct Output: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
  }

  /// Runs `executable` without blocking a thread, with a scratch `TMPDIR` that is removed
  /// afterwards (the compiler driver leaves a directory in it on every run). Tools take turns
  /// for the machine's cores (``ProcessSlots``).
  public static func run(_ executable: URL, _ arguments: [String]) async throws -> Output {
    try await ProcessSlots.shared.withSlot { try await runNow(executable, arguments) }
  }

  private static func runNow(_ executable: URL, _ arguments: [String]) async throws -> Output {
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("workshop-tool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    // Files, not pipes: a pipe's buffer fills up and blocks a talkative tool.
    let outURL = scratch.appendingPathComponent("stdout")
    let errURL = scratch.appendingPathComponent("stderr")
    for url in [outURL, errURL] {
      _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    }
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    defer {
      try? out.close()
      try? err.close()
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var environment = ProcessInfo.processInfo.environment
    environment["TMPDIR"] = scratch.path
    process.environment = environment
    process.standardOutput = out
    process.standardError = err
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
      process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
      do {
        try process.run()
      } catch {
        process.terminationHandler = nil
        continuation.resume(throwing: error)
      }
    }
    return Output(
      status: status,
      standardOutput: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
      standardError: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
  }

  #if os(macOS)
    private static func xcrun(_ arguments: [String]) throws -> String {
      let xcrun = Process()
      xcrun.executableURL = URL(fileURLWithPath: "/usr/bin/xcrun")
      xcrun.arguments = arguments
      let output = Pipe()
      xcrun.standardOutput = output
      try xcrun.run()
      xcrun.waitUntilExit()
      let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      guard xcrun.terminationStatus == 0, !text.isEmpty else { throw Failure.noCompiler }
      return text
    }
  #endif
}
