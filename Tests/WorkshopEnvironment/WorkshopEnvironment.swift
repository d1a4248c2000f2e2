import Foundation

/// Every `WORKSHOP_*` environment variable the workshop reads, read here and nowhere else, so that
/// one list says what each does. Tests/MAINTAINING.md's table is checked against `all`
/// (DocsTests).
public enum WorkshopEnvironment {
  /// One variable: its name, who sets it, and what it changes.
  public struct Variable: Sendable, Equatable {
    public let name: String
    /// An example value, as Tests/MAINTAINING.md shows it.
    public let example: String
    public let meaning: String
  }

  public static let verify = Variable(
    name: "WORKSHOP_VERIFY", example: "1",
    meaning:
      "The project's test command: every untouched starter must fail exactly its lessons and "
      + "every solution must pass (CI, maintainers).")
  public static let side = Variable(
    name: "WORKSHOP_SIDE", example: "yours",
    meaning:
      "Run one side only: `yours` (the starter you edit) or `solution`. The sanitizer runs in CI "
      + "set `solution`, because the starters race on purpose.")
  public static let check = Variable(
    name: "WORKSHOP_CHECK", example: "\"two model actors run at the same time\"",
    meaning:
      "Run one check only, by its exact name; the others end at once (the wrong-answer gate, "
      + "and `swift run workshop check`).")
  public static let timeScale = Variable(
    name: "WORKSHOP_TIME_SCALE", example: "4",
    meaning:
      "Stretch the deadlines that only keep a wrong answer from hanging the run (bounded waits, "
      + "the watchdog) on a slow or loaded machine; 1 by default. The sanitizer runs set 4.")
  public static let swiftc = Variable(
    name: "WORKSHOP_SWIFTC", example: "/usr/bin/swiftc",
    meaning:
      "The compiler the compile probes use, when the one found (`xcrun` on macOS, else `swiftc` "
      + "on the PATH) is not the one that built the package.")
  public static let modules = Variable(
    name: "WORKSHOP_MODULES", example: ".build/debug/Modules",
    meaning:
      "The folder with ManagedObjectCore.swiftmodule that the compile probes (and `workshop "
      + "doctor`) compile against, when the tests cannot find the build that made them (a test "
      + "binary run from elsewhere); Swift Build's `.build/out/Products/Debug` (`Debug-linux` on "
      + "Linux) and Xcode's `Build/Products/Debug` work too.")
  public static let synthesizeInterfaceDir = Variable(
    name: "WORKSHOP_SYNTHESIZE_INTERFACE_DIR", example: "/opt/swift/usr/bin",
    meaning:
      "The folder the drift checks (verify mode) take `swift-synthesize-interface` from, when "
      + "the one found (`xcrun --find` on macOS, else next to `swiftc`) is missing or is not from "
      + "the toolchain that built the package. Without the tool, the public-API comparison is "
      + "skipped with a message, and CI on Linux runs it.")
  public static let bench = Variable(
    name: "WORKSHOP_BENCH", example: "1",
    meaning:
      "Run the benchmarks, which are off by default (measurements, not checks; use `-c release`).")
  public static let modelSeconds = Variable(
    name: "WORKSHOP_MODEL_SECONDS", example: "600",
    meaning:
      "How long the core's model-based random test runs programs; about 1 second by default. "
      + "A failure prints its seed and the shortest program that still fails.")
  public static let modelSeed = Variable(
    name: "WORKSHOP_MODEL_SEED", example: "1234",
    meaning:
      "The first seed of the core's model-based random test (1 by default); the run tries it, "
      + "then the next ones. A failure's seed reproduces it.")

  public static let seed = Variable(
    name: "WORKSHOP_SEED", example: "1234",
    meaning:
      "The seed of the history checks' random programs (every step); a new one each run by "
      + "default. A failure prints its seed: set it to run the same programs again.")
  public static let histories = Variable(
    name: "WORKSHOP_HISTORIES", example: "1000",
    meaning:
      "How many random programs each history check runs, instead of its default (a dozen or "
      + "so): for measuring how often a mistake is caught, or soaking a solution.")

  public static let kernel = Variable(
    name: "WORKSHOP_KERNEL", example: "0",
    meaning:
      "With 0, the checks do not ask Linux's kernel whether a caller's thread is parked, as on a "
      + "Mac, where it is never asked: they fall back to their bounds. CI runs Steps 1 and 4 so "
      + "once, to hold the path a Mac takes.")

  /// Every variable, in the order Tests/MAINTAINING.md lists them.
  public static let all = [
    verify, side, check, timeScale, swiftc, modules, synthesizeInterfaceDir, bench, modelSeconds,
    modelSeed, seed,
    histories, kernel,
  ]

  /// The variable's value in this process, nil when it is not set or empty.
  public static func value(_ variable: Variable) -> String? {
    guard let value = ProcessInfo.processInfo.environment[variable.name], !value.isEmpty else {
      return nil
    }
    return value
  }

  /// True when the variable is set to `1`.
  public static func isOn(_ variable: Variable) -> Bool { value(variable) == "1" }
}
