import Foundation
import WorkshopEnvironment

/// `workshop check N --race [--runs K]`: step N's checks on your side under the thread
/// sanitizer, K times, then a lesson per data race in your files. The confinement checker sees
/// only the context and its objects; a race on plain Swift state (a counter the controller keeps)
/// is the sanitizer's to see, and only when it happens in a run, so the checks run more than once:
/// the example race of `Tests/WrongAnswers/README.md` showed in about half the runs here, since
/// the core's lock, taken after each `perform`, orders many of the accesses for the sanitizer.
///
/// It builds into `.build-tsan`, apart from the normal build, the same folder the introduction's
/// sanitizer slide and CI use (`.ci/run`), so one sanitized build serves all three.
enum RaceCheck {
  static let defaultRuns = 5
  /// The sanitized build, apart from `.build` (git-ignored, as every `.build-*` is).
  static let scratchPath = ".build-tsan"
  /// What the sanitizer slows down is given four times as long, as in CI.
  static let timeScale = "4"

  static func run(_ step: Step, runs: Int, in workspace: Workspace) throws -> Int32 {
    Console.say(
      "Checking Step \(step.number) for data races on your side (WORKSHOP_SIDE=yours), under the "
        + "thread sanitizer, \(runs) run\(runs == 1 ? "" : "s"): "
        + "swift test --sanitize=thread --filter \(step.filter)")
    let sanitizer = ["--sanitize=thread", "--scratch-path", scratchPath]
    if let failure = try Checks.build(in: workspace, options: sanitizer) {
      Console.say(
        failure.explanation(
          checking: step, steps: workspace.steps(), changed: workspace.differsFromCommit))
      return 2
    }
    let log = "\(scratchPath)/race-\(step.name).log"
    var whole = ""
    var reports: [(run: Int, report: RaceReport)] = []
    var failing = false
    for run in 1...runs {
      let started = Date()
      var printed = ""
      let output = try Checks.test(
        step, both: false, in: workspace,
        label: "Run \(run) of \(runs): Step \(step.number)'s checks under the sanitizer… ",
        options: sanitizer, variables: variables(in: workspace)
      ) { printed = $0 }
      whole += "==== run \(run) of \(runs)\n" + printed
      let found = RaceReport.all(in: printed)
      reports += found.map { (run, $0) }
      let report = try? StepReport(step: step, run: output)
      let count = report.map { "your side: \($0.count(of: "yours"))" } ?? "no check ran"
      Console.say(
        "done (\(Checks.seconds(since: started))): \(count); "
          + "\(found.count) race report\(found.count == 1 ? "" : "s").")
      if report?.isDone != true { failing = true }
    }
    try? whole.write(to: workspace.url(log), atomically: true, encoding: .utf8)
    var lessons = RaceLessons(
      step: step, runs: runs, reports: reports, starterFiles: starterFiles(of: step, in: workspace))
    lessons.names = demangled(lessons, in: workspace)
    Console.say("")
    if failing {
      Console.say(
        "Some checks did not pass under the sanitizer. Their lessons come first: "
          + "swift run workshop check \(step.number). (A check that passes without the sanitizer "
          + "and fails under it may be too slow there: say so to a facilitator.)\n")
    }
    Console.say(lessons.text(read: Overview.deck(of: step, in: workspace), log: log))
    Console.say("The sanitizer's whole output: \(log)")
    return lessons.yours.isEmpty && !failing ? 0 : 1
  }

  /// The environment of each run: your side only, deadlines stretched, and the sanitizer told
  /// to go on after a report, to end the process with its own exit code (a checks' child
  /// process that saw a race would otherwise exit 66, and its check would fail for that), and
  /// to skip the toolchain's false positives on Linux (the file explains each). The races are
  /// read from the output, not from exit codes.
  static func variables(in workspace: Workspace) -> [String: String] {
    let environment = ProcessInfo.processInfo.environment
    var options =
      "suppressions=\(workspace.url(".ci/tsan-suppressions.txt").path) halt_on_error=0 exitcode=0"
    // Yours after ours: the sanitizer takes the last value of a flag.
    if let yours = environment["TSAN_OPTIONS"], !yours.isEmpty { options += " \(yours)" }
    return [
      WorkshopEnvironment.side.name: "yours",
      WorkshopEnvironment.timeScale.name: WorkshopEnvironment.value(WorkshopEnvironment.timeScale)
        ?? timeScale,
      "TSAN_OPTIONS": options,
    ]
  }

  /// The names of the files in the step's folder, to recognize a frame that names a bare file.
  static func starterFiles(of step: Step, in workspace: Workspace) -> Set<String> {
    let folder = workspace.url(step.starter)
    guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
    else { return [] }
    var names: Set<String> = []
    for case let url as URL in walker where url.pathExtension == "swift" {
      names.insert(url.lastPathComponent)
    }
    return names
  }

  /// The Swift names in the lessons, demangled by `swift demangle --simplified --compact`, which
  /// prints one line per name; none when it cannot (the lessons then show them mangled).
  static func demangled(_ lessons: RaceLessons, in workspace: Workspace) -> [String: String] {
    let mangled = Array(
      Set(
        (lessons.yours + lessons.elsewhere).flatMap { $0.accesses.map(\.function) }
          .filter { $0.hasPrefix("$s") })
    ).sorted()
    guard !mangled.isEmpty,
      let result = try? Shell.run(
        "swift", ["demangle", "--simplified", "--compact"] + mangled, in: workspace.root),
      result.status == 0
    else { return [:] }
    let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count >= mangled.count else { return [:] }
    return Dictionary(
      uniqueKeysWithValues: zip(mangled, lines.prefix(mangled.count).map(String.init)))
  }
}
