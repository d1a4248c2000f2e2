/// What the command line asks the runner to do.
package enum Command: Equatable, Sendable {
  /// Every step's state, and the next step to do.
  case overview
  /// One step's checks, then one summary.
  case check(step: Int, both: Bool)
  /// One step's checks on your side under the thread sanitizer, `runs` times, then a lesson per
  /// data race in your files (`check N --race [--runs K]`).
  case race(step: Int, runs: Int)
  /// `check` again whenever a file of the step changes; `runs` bounds it.
  case watch(step: Int, both: Bool, runs: Int?)
  /// The next level of the step's hints.
  case hint(step: Int, mode: HintMode)
  /// The step's starter, back.
  case reset(step: Int, confirmed: Bool)
  /// The step against its solution.
  case diff(step: Int)
  /// This machine against what the workshop needs: toolchain, Xcode, a build, a compile probe.
  case doctor
  /// For maintainers: a new step from `Tests/NewStepTemplate`, in every list of the steps.
  case newStep(number: Int, name: String, buildsOn: Int?)
  case help

  /// Which hint level `hint` shows.
  package enum HintMode: Equatable, Sendable {
    /// The one after the last shown.
    case next
    /// The last shown, again.
    case again
    /// None: the next `hint` starts at level 1.
    case reset
  }

  /// A command line the runner does not understand, and why.
  package struct UsageError: Error, Equatable, CustomStringConvertible {
    package let description: String

    package init(description: String) {
      self.description = description
    }
  }

  package init(arguments: [String]) throws(UsageError) {
    guard let name = arguments.first else {
      self = .overview
      return
    }
    var options = Array(arguments.dropFirst())
    switch name {
    case "help", "-h", "--help":
      self = .help
      return
    case "doctor":
      guard options.isEmpty else {
        throw UsageError(
          description: "'doctor' does not take \(options.map { "'\($0)'" }.joined(separator: " "))"
        )
      }
      self = .doctor
      return
    case "new-step":
      var buildsOn: Int?
      if let index = options.firstIndex(of: "--builds-on") {
        guard index + 1 < options.count, let earlier = Int(options[index + 1]), earlier > 0 else {
          throw UsageError(
            description: "--builds-on needs an earlier step's number, e.g. `--builds-on 6`")
        }
        buildsOn = earlier
        options.removeSubrange(index...index + 1)
      }
      guard options.count == 2, let number = Int(options[0]), number > 0 else {
        throw UsageError(
          description: "'new-step' needs a number and a name, e.g. `new-step 7 BackgroundImporter`")
      }
      self = .newStep(number: number, name: options[1], buildsOn: buildsOn)
      return
    case "check", "watch", "hint", "reset", "diff":
      break
    default:
      throw UsageError(description: "unknown command '\(name)'")
    }
    guard let first = options.first, let step = Int(first), step > 0 else {
      throw UsageError(description: "'\(name)' needs a step number, e.g. `\(name) 1`")
    }
    options.removeFirst()
    func flag(_ flag: String) -> Bool {
      guard let index = options.firstIndex(of: flag) else { return false }
      options.remove(at: index)
      return true
    }
    func runs() throws(UsageError) -> Int? {
      guard let index = options.firstIndex(of: "--runs") else { return nil }
      guard index + 1 < options.count, let count = Int(options[index + 1]), count > 0 else {
        throw UsageError(description: "--runs needs a number of runs, e.g. `--runs 2`")
      }
      options.removeSubrange(index...index + 1)
      return count
    }
    switch name {
    case "check":
      let both = flag("--both")
      if flag("--race") {
        guard !both else {
          throw UsageError(description: "--race checks your side only: leave out --both")
        }
        self = .race(step: step, runs: try runs() ?? RaceCheck.defaultRuns)
      } else {
        self = .check(step: step, both: both)
      }
    case "watch":
      let count = try runs()
      self = .watch(step: step, both: flag("--both"), runs: count)
    case "hint":
      let again = flag("--again")
      let reset = flag("--reset")
      guard !(again && reset) else {
        throw UsageError(description: "give `hint` either --again or --reset, not both")
      }
      self = .hint(step: step, mode: again ? .again : reset ? .reset : .next)
    case "reset":
      self = .reset(step: step, confirmed: flag("--yes"))
    default:
      self = .diff(step: step)
    }
    guard options.isEmpty else {
      throw UsageError(
        description: "'\(name)' does not take \(options.map { "'\($0)'" }.joined(separator: " "))")
    }
  }

  /// How to call the runner.
  package static let usage = """
    usage: swift run workshop [command]

      (no command)         every step's checks on your side: what passes, and the next step
      check N [--both]     step N's checks on your side (--both: and the solution's), one summary
      check N --race [--runs K]
                           after check N passes, before comparing with the solution: its
                           checks on your side under the thread sanitizer, K times (5), and
                           a lesson per data race in your code. Costs a second build in
                           .build-tsan (about 2 minutes cold, 1 s warm, on 2 Linux cores)
                           and 3–13 s a run (Step 1: about 5 s)
      watch N [--runs K]   check N again whenever a file of step N changes (K: stop after K runs)
      hint N               the next hint for step N (--again: the same one; --reset: start over)
      diff N               your step N against its solution (git diff --no-index)
      reset N [--yes]      put step N's starter back, after showing what changes; keeps a copy
      doctor               is this machine ready? toolchain, Xcode, a build, a compile probe
      help                 this text

    For maintainers:
      new-step N Name [--builds-on K]
                           a new step N from Tests/NewStepTemplate, listed wherever steps are
                           (--builds-on K: it imports Step K's solution instead of copying it)

    The runner calls `swift test --filter StepN`, which stays the way to see every detail.
    """
}
