import Foundation
import ManagedObjectCore
import Testing

/// A stretch check's scenario in a child process. Not started is judged where the stub is
/// called: in the child. There, the issues recorded after a stub said "not started" are known,
/// and the child marks it on standard error; the parent relays the stub's call to its own
/// `exam`, so that the scoreboard shows the optional task, as it would for a scenario run in
/// the parent. A started task's wrong answer fails like any check's, a crash included.
extension ChildCheck {
  static let notStartedMarker = "WORKSHOP-CHILD-STRETCH-NOT-STARTED"

  /// In the child: `run(check, body)`, with the stubs of a stretch task listened to.
  public static func runStretch(_ check: ExamCheck, _ body: () async throws -> Void) async {
    let stubs = StretchTask.Observer()
    await StretchTask.$observer.withValue(stubs) {
      await withKnownIssue(isIntermittent: true) {
        await run(check, body)
      } matching: { _ in
        !stubs.calls.isEmpty
      }
    }
    if let call = stubs.calls.first {
      FileHandle.standardError.write(Data("\(notStartedMarker) \(call)\n".utf8))
    }
  }

  /// In the parent, inside `exam`: when a stub said "not started" in the child, says it here
  /// too, reports the child as the optional task's, and returns true; else false.
  static func reportStretch(
    _ result: ExitTest.Result?, died lesson: Lesson, sourceLocation: SourceLocation
  ) -> Bool {
    let standardError = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) }
    guard let result, let standardError, standardError.contains(notStartedMarker) else {
      return false
    }
    let call = standardError.split(separator: "\n")
      .first { $0.hasPrefix(notStartedMarker) }?.dropFirst(notStartedMarker.count + 1)
    StretchTask.observer?.record(String(call ?? "a stub, in a child process"))
    FileHandle.standardError.write(Data(SanitizerReports.in(standardError).utf8))
    if let death = ChildDeath(standardError: standardError) {
      recordExamIssue(
        "Observed: the scenario \(death.observed)\n(after the task's stub said it is not started)\n"
          + lesson.text, sourceLocation: sourceLocation)
    } else if result.exitStatus != .exitCode(EXIT_SUCCESS) {
      recordExamIssue(
        "Observed: the scenario ended its process (\(result.exitStatus)) after the task's stub "
          + "said it is not started\n" + lesson.text, sourceLocation: sourceLocation)
    } else if standardError.contains(failedMarker) {
      // The child's issues came over as known ones, the stub's; the scoreboard shows the task.
      ExamScore.current?.recordFailure()
    }
    return true
  }
}
