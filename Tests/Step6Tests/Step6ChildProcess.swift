import Foundation
import Testing
import WorkshopSupport

/// The Step 6 scenarios in which a plausible answer can stop the program (a force unwrap of
/// what the source answers for a deleted note, a `try!` on a save that fails): each runs in a
/// child process, an exit test that captures the scenario and the side by name. The stub's
/// "not started" said there is relayed to the parent's check (`ChildCheck.runStretch`).
enum Step6Scenario: String, Codable, Sendable {
  case copy
  case histories
  case copyHistories

  var check: ExamCheck {
    switch self {
    case .copy: Step6Tests.copyCheck
    case .histories: Step6Tests.historiesCheck
    case .copyHistories: Step6Tests.copyHistoriesCheck
    }
  }

  func run(_ subject: Subject) async throws {
    switch self {
    case .copy: try await Step6Tests.copyScenario(subject)
    case .histories: try await Step6Tests.randomNoteHistories(subject, copies: false)
    case .copyHistories: try await Step6Tests.randomNoteHistories(subject, copies: true)
    }
  }
}

extension Step6Tests {
  static let endedTheProcess = step.lesson(
    rule: "A note that is missing is an ordinary answer between model actors: nil, never a "
      + "crash. A call that stops the program (a force unwrap, a `try!`, `object(with:)` on a "
      + "gone row) stops the whole app: its message is above.",
    hint: "Unwrap the source's answer with `guard let … else { return nil }`.",
    read: "stretch-task")

  /// Runs `scenario` for `subject` in a child process (Swift 6.3's exit tests), else in this one.
  ///
  /// In verify mode the sides are the untouched starter and the reference, neither of which
  /// stops the program, so the scenario runs here, as Step 5's do (a parent waits for its child
  /// on a thread of the cooperative pool). The attendee's runs and the wrong-answer gate take
  /// the child.
  static func inChildProcess(_ scenario: Step6Scenario, _ subject: Subject) async throws {
    if isVerifyMode {
      try await scenario.run(subject)
      return
    }
    let result = await withExitTestOffThePool {
      await #expect(
        processExitsWith: .success, observing: [\.standardErrorContent],
        "the scenario must finish without ending its process"
      ) { [side = subject.side as ExamSide, scenario = scenario as Step6Scenario] in
        await ChildCheck.runStretch(scenario.check) {
          try await scenario.run(Subject.every.first(of: side))
        }
      }
    }
    ChildCheck.report(result, died: endedTheProcess)
  }
}
