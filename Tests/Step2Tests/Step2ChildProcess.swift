import Foundation
import Testing
import WorkshopSupport

/// The Step 2 scenarios in which a call must throw, and the random histories, which call
/// everything: a `try!`, a force unwrap of the kept ID, or `object(with:)` on an entity deleted
/// elsewhere ends the process there. Each runs in a child process, an exit test that captures the
/// scenario and the side by name, so that such an answer fails its check with a lesson and the
/// other checks still report. A stretch task's stub that says "not started" in the child says it
/// to the parent's check too (`ChildCheck.runStretch`).
enum Step2Scenario: String, Codable, Sendable {
  case deletedElsewhere
  case notConfigured
  case batchWithBadIDs
  case histories
  case batchHistories

  var check: ExamCheck {
    switch self {
    case .deletedElsewhere: Step2Tests.deletedCheck
    case .notConfigured: Step2Tests.notConfiguredCheck
    case .batchWithBadIDs: Step2Tests.batchErrorCheck
    case .histories: Step2Tests.historiesCheck
    case .batchHistories: Step2Tests.batchHistoriesCheck
    }
  }

  func run(_ subject: Subject) async throws {
    switch self {
    case .deletedElsewhere: try await Step2Tests.updateDeletedElsewhere(subject)
    case .notConfigured: try await Step2Tests.beforeConfigure(subject)
    case .batchWithBadIDs: try await Step2Tests.renameAllWithBadIDs(subject)
    case .histories: try await Step2Tests.randomEntityHistories(subject, batches: false)
    case .batchHistories: try await Step2Tests.randomEntityHistories(subject, batches: true)
    }
  }
}

extension Step2Tests {
  static let endedTheProcess = step.lesson(
    rule: "A lookup that fails, or an ID that is not there yet, is an error for the caller: a "
      + "call that stops the program instead (`object(with:)` on a row that is gone, a `try!`, "
      + "a force unwrap) ends the app. The message above says which call it was.",
    hint: "Look the entity up with `try moc.existingObject(with:as:)` and let the error "
      + "propagate; unwrap the kept ID with `guard let … else { throw NotConfiguredError() }`.",
    read: "pitfalls")

  /// Runs `scenario` for `subject` in a child process (Swift 6.3's exit tests), else in this one.
  ///
  /// In verify mode the sides are the untouched starter and the reference, neither of which
  /// crashes, so the scenario runs here, as Step 5's do (a parent waits for its child on a thread
  /// of the cooperative pool). The attendee's runs and the wrong-answer gate take the child.
  static func inChildProcess(_ scenario: Step2Scenario, _ subject: Subject) async throws {
    if isVerifyMode {
      try await scenario.run(subject)
      return
    }
    let result = await withExitTestOffThePool {
      await #expect(
        processExitsWith: .success, observing: [\.standardErrorContent],
        "the scenario must finish without ending its process"
      ) { [side = subject.side as ExamSide, scenario = scenario as Step2Scenario] in
        let subject = Subject.every.first(of: side)
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
