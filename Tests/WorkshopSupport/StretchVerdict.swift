import ManagedObjectCore
import Synchronization
import Testing

// How `exam` judges your side of a stretch check (rule 6 in Exam.swift): optional while the
// task's stub says it has not been started, a failure like any other once it has.

/// Whether a stretch check's issues are "not started" (known) or failures: an issue is known
/// once the stub has said so, and a failure when it comes first, or without it.
final class StretchVerdict: Sendable {
  private let stubs: StretchTask.Observer
  private let failures = Mutex(0)

  init(_ stubs: StretchTask.Observer) {
    self.stubs = stubs
  }

  /// Whether the issue being recorded now is known: true once a stub has said "not started".
  func matches() -> Bool {
    if !stubs.calls.isEmpty { return true }
    failures.withLock { $0 += 1 }
    return false
  }

  /// True when an issue was recorded as a failure: before a stub said "not started", or with
  /// no stub saying it.
  var hasFailures: Bool { failures.withLock { $0 > 0 } }
}

/// The harness's own rules for the stubs: only a starter's stretch stub says "not started", and
/// the untouched starter's does, before anything fails, so that an attendee who has not started
/// sees an optional task and not a failure.
func checkTheStubs(
  _ check: ExamCheck, side: ExamSide, verify: Bool, stubs: StretchTask.Observer,
  verdict: StretchVerdict, sourceLocation: SourceLocation
) {
  let calls = stubs.calls
  if side == .solution, let call = calls.first {
    Issue.record(
      Comment(
        rawValue: "Harness: the solution of \(check.step) calls StretchTask.notStarted() (\(call)) "
          + "in '\(check.name)'. Only a starter's stretch stub may: the solutions do the task."),
      sourceLocation: sourceLocation)
  }
  guard verify, side == .yours, check.starter == .stretch else { return }
  if calls.isEmpty {
    Issue.record(
      Comment(
        rawValue: "Harness: in the stretch check '\(check.name)', no stub of the untouched "
          + "starter of \(check.step) called StretchTask.notStarted(): an attendee who has not "
          + "started the task would see a failure, not an optional task. Make the stub that this "
          + "check calls say so, first thing."), sourceLocation: sourceLocation)
  } else if verdict.hasFailures {
    Issue.record(
      Comment(
        rawValue: "Harness: in '\(check.name)', the untouched starter of \(check.step) recorded "
          + "an issue before its stub called StretchTask.notStarted() (\(calls[0])): an attendee "
          + "who has not started the task would see that failure. Let the check call the stub "
          + "before it records anything."), sourceLocation: sourceLocation)
  }
}

/// What an attendee's unsolved stretch task says on the scoreboard. The runner reads it.
package let stretchNote = "stretch task, optional: not done yet"

/// What the known issue of a stretch task that has not been started says.
package let notStartedNote =
  "\(stretchNote). Not started: StretchTask.notStarted() was called while it ran. The task's "
  + "stub calls it; delete that call when you start, and from then on this check judges your "
  + "answer: a wrong one fails."
