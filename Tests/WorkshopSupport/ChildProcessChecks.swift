import Foundation
import ManagedObjectCore
import Testing

/// A check whose wrong answers can end the process (a continuation resumed twice, a `try!`, an
/// `as!`) runs its scenario in a child process, an exit test, so that such an answer fails the
/// check with its lesson while the run goes on.
///
///     let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
///       [side = subject.side as ExamSide] in
///       await ChildCheck.run(Self.someCheck) { try await Self.scenario(side) }
///     }
///     ChildCheck.report(result, died: Self.someLesson)
///
/// Issues the child records are forwarded to the parent's test by Swift Testing; the child also
/// marks a failure on standard error, so that the parent's scoreboard line says ✘. A child that
/// traps is reported with the last words it wrote (`catchDeath()`): the message of the call that
/// stopped it, the attendee's.
public enum ChildCheck {
  static let failedMarker = "WORKSHOP-CHILD-CHECK-FAILED"

  /// In the child: runs `body` as `check`, recording its lessons as `exam` would. A watchdog
  /// ends the child after half the check's own time, so that a deadlocked scenario (threads
  /// blocked for good) ends the child, not the parent, which then reports the lesson.
  public static func run(_ check: ExamCheck, _ body: () async throws -> Void) async {
    catchDeath()
    let watch = Watchdog.shared.arm(
      "\(check.step) — '\(check.name)' (in a child process)", likelyCause: check.likelyCauseOfHang,
      after: check.watchdogTimeout / 2)
    defer { Watchdog.shared.disarm(watch) }
    // `runStretch` binds the stubs' observer; no other child has one.
    let score = ExamScore(check: check.name, stretchStubs: StretchTask.observer)
    await ExamScore.$current.withValue(score) {
      do {
        try await body()
      } catch let timeout as TimeoutError where check.whenStuck != nil {
        recordExamIssue(
          "Observed: \(timeout) (\(check.likelyCauseOfHang))\n" + check.whenStuck!.text,
          sourceLocation: #_sourceLocation)
      } catch {
        recordExamIssue("\(error)", sourceLocation: #_sourceLocation)
      }
    }
    if score.failed { FileHandle.standardError.write(Data("\(failedMarker)\n".utf8)) }
  }

  /// In the parent, inside `exam`: counts a failure the child marked, and turns a child that
  /// died into `lesson`, with the last lines it wrote. A stretch task's stub that said "not
  /// started" in the child says it here too (`reportStretch`).
  public static func report(
    _ result: ExitTest.Result?, died lesson: Lesson,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    if reportStretch(result, died: lesson, sourceLocation: sourceLocation) { return }
    guard let result else {
      // The child did not exit normally; the failed #expect says how. Teach why.
      recordExamIssue(
        "Observed: the scenario ended its process instead of finishing\n" + lesson.text,
        sourceLocation: sourceLocation)
      return
    }
    let standardError = String(decoding: result.standardErrorContent, as: UTF8.self)
    // A race the sanitizer saw in the child is the race check's to teach: its reports go on to
    // this process's standard error, where `check N --race` (and CI) read them.
    FileHandle.standardError.write(Data(SanitizerReports.in(standardError).utf8))
    if let death = ChildDeath(standardError: standardError) {
      recordExamIssue(
        "Observed: the scenario \(death.observed)\n" + lesson.text, sourceLocation: sourceLocation)
    } else if result.exitStatus != .exitCode(EXIT_SUCCESS) {
      let lastLines = standardError.split(separator: "\n").suffix(3).joined(separator: "\n  ")
      recordExamIssue(
        "Observed: the scenario ended its process (\(result.exitStatus)):\n  \(lastLines)\n"
          + lesson.text, sourceLocation: sourceLocation)
    } else if standardError.contains(failedMarker) {
      ExamScore.current?.recordFailure()
    }
  }
}

/// The thread sanitizer's reports in a child process's standard error. The child's standard
/// error is captured for its parent, so a race seen there would reach no reader unless passed
/// on. The child runs with the sanitizer's `exitcode=0` (the race check sets it, and CI): a
/// child that reported a race exits 66 otherwise, which its exit test reads as a scenario
/// that did not finish.
public enum SanitizerReports {
  /// The sanitizer's reports in a child's standard error, each from its warning line through
  /// its summary line.
  public static func `in`(_ standardError: String) -> String {
    var kept: [Substring] = []
    var inside = false
    for line in standardError.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.contains("WARNING: ThreadSanitizer:") { inside = true }
      if inside { kept.append(line) }
      if line.hasPrefix("SUMMARY: ThreadSanitizer") { inside = false }
    }
    return kept.isEmpty ? "" : kept.joined(separator: "\n") + "\n"
  }
}
