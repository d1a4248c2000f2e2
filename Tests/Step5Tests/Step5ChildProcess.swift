import Foundation
import Testing
import WorkshopSupport

/// The Step 5 scenarios that cancel waiting callers. A wrong answer there can resume a waiter
/// twice, which ends the process, so each runs in a child process; an exit test captures the
/// scenario by name.
enum ChildScenario: String, Codable, Sendable {
  case cancelledWhileWaiting
  case cancelledWaiterStaysEmptyHanded
  case cancelledBeforeJoining
  case threeWaitingWritesCancelled

  var check: ExamCheck {
    switch self {
    case .cancelledWhileWaiting: Step5Tests.cancellationCheck
    case .cancelledWaiterStaysEmptyHanded: Step5Tests.cancelledHoldsNothingCheck
    case .cancelledBeforeJoining: Step5Tests.cancelledBeforeCheck
    case .threeWaitingWritesCancelled: Step5Tests.resumedOnceCheck
    }
  }

  func run(_ subject: Subject) async throws {
    switch self {
    case .cancelledWhileWaiting: try await Step5Tests.cancelledWhileWaiting(subject)
    case .cancelledWaiterStaysEmptyHanded:
      try await Step5Tests.cancelledWaiterStaysEmptyHanded(subject)
    case .cancelledBeforeJoining: try await Step5Tests.cancelledBeforeJoining(subject)
    case .threeWaitingWritesCancelled: try await Step5Tests.cancelThreeWaitingWrites(subject)
    }
  }
}

extension Step5Tests {
  static let endedTheProcess = step.lesson(
    rule: "A waiter is resumed exactly once: by the cancellation handler that takes it out of the "
      + "queue, or by the release that admits it, never by both.",
    hint:
      "On cancel, remove the waiter from the queue under the lock, and resume only a continuation "
      + "you removed.", read: "the-foil")

  /// Runs `scenario` for `subject` in a child process (Swift 6.3's exit tests), else in this one.
  ///
  /// In verify mode the sides are the untouched starter and the reference, which cannot resume a
  /// waiter twice, so the scenario runs here: a parent waits for its child on a thread of the
  /// cooperative pool, and children that live for seconds (the starter's bounded waits) would
  /// hold the pool of a 2-core machine away from every other check. The attendee's runs and the
  /// wrong-answer gate take the child.
  static func inChildProcess(_ scenario: ChildScenario, _ subject: Subject) async throws {
    if isVerifyMode {
      try await scenario.run(subject)
      return
    }
    let result = await #expect(
      processExitsWith: .success, observing: [\.standardErrorContent],
      "the scenario must finish without ending its process"
    ) { [side = subject.side as ExamSide, scenario = scenario as ChildScenario] in
      guard let subject = Subject.all.first(where: { $0.side == side }) else { return }
      await ChildCheck.run(scenario.check) { try await scenario.run(subject) }
    }
    ChildCheck.report(result, died: endedTheProcess)
  }
}
