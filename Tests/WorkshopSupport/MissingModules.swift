import Synchronization
import Testing
import WorkshopBuildLayout
import WorkshopEnvironment

/// Says once that the modules are missing: the first check to need them records the issue, with
/// what was looked at and the fix; every later one records a known issue, "not run", so that
/// the fix is read once, not under every probe on both sides.
package final class MissingModulesReport: Sendable {
  /// The step, name and scoreboard label of the check that reported the issue, once one has.
  private let reporter = Mutex<String?>(nil)

  package init() {}

  /// Records `check` as not run for want of modules, and returns its scoreboard line: a failure
  /// for the first check reported, a `–` line (which no scoreboard reader counts) for the rest.
  package func report(
    _ check: ExamCheck, label: String, explanation: String, sourceLocation: SourceLocation
  ) -> String {
    let earlier = reporter.withLock { reporter in
      defer { reporter = reporter ?? "\(check.step)'s '\(check.name)' (\(label))" }
      return reporter
    }
    if let earlier {
      // A short note, not the explanation again: the point is to read the fix once.
      withKnownIssue(sourceLocation: sourceLocation) {
        Issue.record(
          Comment(rawValue: "not run: no built modules; \(earlier) says why, and the fix"),
          sourceLocation: sourceLocation)
      }
      return "[\(check.step)] – \(label) — \(check.name) (not run: no built modules)"
    }
    // Recorded outside `exam`, so that verify mode cannot take it for a starter failing its
    // lesson: a run without modules checks nothing and must fail.
    Issue.record(
      Comment(rawValue: "Check: \(check.name)\n\(explanation)"), sourceLocation: sourceLocation)
    return "[\(check.step)] ✘ \(label) — \(check.name)"
  }

  static let shared = MissingModulesReport()
}

/// Whether the modules that `check` compiles against were found. When they were not, the check
/// is reported as not run (``MissingModulesReport``) and must not run: call this before `exam`.
public func builtModulesAreReady(
  for check: ExamCheck, label: String, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
  // The one-check filter, as `exam` applies it: a check that does not run reports nothing.
  if let only = WorkshopEnvironment.value(WorkshopEnvironment.check), only != check.name {
    return true
  }
  guard let explanation = BuiltModules.thisRun.explanation else { return true }
  let line = MissingModulesReport.shared.report(
    check, label: label, explanation: explanation, sourceLocation: sourceLocation)
  ExamOutput.write(line + "\n")
  ExamSummary.shared.record(
    step: check.step, check: check.name, label: label, line: line, passed: false)
  return false
}
