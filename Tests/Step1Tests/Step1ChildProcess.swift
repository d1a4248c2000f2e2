import Foundation
import Testing
import WorkshopSupport

/// The Step 1 scenarios in which a call throws, and the random histories, whose saves fail too: a
/// `try!` there (or a force unwrap of what a failed lookup left nil) ends the process. Each runs in a child process, an exit test that
/// captures the scenario and the subject by name, so that such an answer fails its check with
/// a lesson and the other checks still report. A stretch task's stub that says "not started" in
/// the child says it to the parent's check too (`ChildCheck.runStretch`).
enum Step1Scenario: String, Codable, Sendable {
  case failedSave
  case deletedElsewhere
  case failedDelete
  case deleteDeletedElsewhere
  case histories
  case deleteHistories

  var check: ExamCheck {
    switch self {
    case .failedSave: Step1Tests.failedSaveCheck
    case .deletedElsewhere: Step1Tests.deletedElsewhereCheck
    case .failedDelete: Step1Tests.failedDeleteCheck
    case .deleteDeletedElsewhere: Step1Tests.deleteDeletedElsewhereCheck
    case .histories: Step1Tests.historiesCheck
    case .deleteHistories: Step1Tests.deleteHistoriesCheck
    }
  }

  func run(_ subject: Subject) async throws {
    switch self {
    case .failedSave: try await Step1Tests.failedSave(subject)
    case .deletedElsewhere: try await Step1Tests.renameDeletedElsewhere(subject)
    case .failedDelete: try await Step1Tests.failedDelete(subject)
    case .deleteDeletedElsewhere: try await Step1Tests.deleteDeletedElsewhere(subject)
    case .histories: try await Step1Tests.randomControllerHistories(subject, deletes: false)
    case .deleteHistories: try await Step1Tests.randomControllerHistories(subject, deletes: true)
    }
  }
}

extension Step1Tests {
  static let endedTheProcess = step.lesson(
    rule: "An error thrown inside `perform` belongs to the caller: the block rethrows it, and "
      + "the async method throws it on. A call that stops the program instead (a `try!`, a "
      + "force unwrap, `object(with:)` on a row that is gone) ends the app: its message is above.",
    hint: "Write `try` inside the block and `try await` on the call, and let the method throw: "
      + "no `try!`, no force unwrap of a lookup that can fail.",
    read: "pitfalls-22")

  /// Runs `scenario` for `subject` in a child process (Swift 6.3's exit tests), else in this one.
  ///
  /// In verify mode the sides are the untouched starter and the reference, neither of which
  /// crashes, so the scenario runs here, as Step 5's do (a parent waits for its child on a thread
  /// of the cooperative pool). The attendee's runs and the wrong-answer gate take the child for
  /// the attendee's side; the solution's, which never stops the program, runs here too (a child
  /// process costs some 50 ms of the step's 3 s).
  static func inChildProcess(_ scenario: Step1Scenario, _ subject: Subject) async throws {
    if isVerifyMode || subject.side == .solution {
      try await scenario.run(subject)
      return
    }
    let result = await withExitTestOffThePool {
      await #expect(
        processExitsWith: .success, observing: [\.standardErrorContent],
        "the scenario must finish without ending its process"
      ) {
        [
          side = subject.side as ExamSide, variant = subject.variant as String?,
          scenario = scenario as Step1Scenario
        ] in
        guard let subject = Subject.every.first(where: { $0.side == side && $0.variant == variant })
        else { return }
        if scenario.check.starter == .stretch {
          await ChildCheck.runStretch(scenario.check) { try await scenario.run(subject) }
        } else {
          await ChildCheck.run(scenario.check) { try await scenario.run(subject) }
        }
      }
    }
    ChildCheck.report(result, died: endedTheProcess)
  }
}
