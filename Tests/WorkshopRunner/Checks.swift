import Foundation
import WorkshopEnvironment

/// Running the checks: one build, then `swift test` for a step, with progress as it goes.
/// `swift test --filter StepN` does the same, with every detail; the runner only reads it.
package enum Checks {
  /// Builds everything `swift test` needs (`swift build --build-tests`, with `options` such as
  /// the sanitizer's); the failure, if the build fails.
  static func build(in workspace: Workspace, options: [String] = []) throws -> BuildFailure? {
    let arguments = ["build", "--build-tests"] + options
    Console.say("Building (swift \(arguments.joined(separator: " ")))… ", terminator: "")
    let started = Date()
    let result = try Shell.run("swift", arguments, in: workspace.root)
    guard result.status == 0 else {
      Console.say("failed.\n")
      return BuildFailure(output: result.output, root: workspace.root.path)
    }
    Console.say("done (\(seconds(since: started))).")
    return nil
  }

  /// Runs `step`'s checks on your side, or on both sides, without building again. Prints
  /// `label` first and, on a terminal, how many results have come in after it, so that the
  /// caller can end the line. `options` go to `swift test` (the sanitizer's), `variables` into
  /// its environment; `output`, when given, receives everything it printed.
  static func test(
    _ step: Step, both: Bool, in workspace: Workspace, label: String, options: [String] = [],
    variables: [String: String] = [:], output: ((String) -> Void)? = nil
  ) throws -> TestRunOutput {
    var environment = ProcessInfo.processInfo.environment.merging(variables) { $1 }
    // What attendees see: verify mode is for CI.
    environment[WorkshopEnvironment.verify.name] = nil
    environment[WorkshopEnvironment.side.name] = both ? nil : "yours"
    // Swift Testing's plain symbols (`✔`), not the SF Symbols it prints on a Mac with SF Pro
    // installed: the parsers read both, but the plain ones read the same in every log.
    environment[sfSymbolsVariable] = "0"
    Console.say(label, terminator: "")
    var results = 0
    let result = try Shell.run(
      "swift", ["test"] + options + ["--skip-build", "--filter", step.filter], in: workspace.root,
      environment: environment
    ) { line in
      guard Console.isTerminal, CheckResult(line: line) != nil else { return }
      results += 1
      Console.say("\r\u{1B}[2K\(label)\(results) results…", terminator: "")
    }
    if Console.isTerminal { Console.say("\r\u{1B}[2K\(label)", terminator: "") }
    output?(result.output)
    return TestRunOutput(output: result.output)
  }

  /// Swift Testing's switch for SF Symbols in its output (`0`: off), which it reads in
  /// `Sources/Testing/ABI/EntryPoints/EntryPoint.swift`.
  static let sfSymbolsVariable = "SWT_SF_SYMBOLS_ENABLED"

  /// `1.4 s`.
  static func seconds(since start: Date) -> String {
    String(format: "%.1f s", Date().timeIntervalSince(start))
  }
}
