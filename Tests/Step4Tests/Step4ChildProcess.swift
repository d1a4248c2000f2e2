import Foundation
import Testing
import WorkshopSupport

/// The Step 4 scenarios that run jobs on the executor under test. A wrong executor can end the
/// process there: a job run twice, or on a freed executor, crashes in the runtime; a blocking
/// enqueue can take the cooperative pool for good. So each runs in a child process of its own
/// (an exit test, a few tens of milliseconds), and a crash fails its check with its lesson,
/// while the other checks' results stand.
enum ChildScenario: String, Codable, Sendable {
  case crud
  case queue
  case serial
  case handOff
  case jobsOnTheirExecutor
  case deadlock
  case controller
  case isolationAnswers
  case histories

  var check: ExamCheck {
    switch self {
    case .crud: Step4Tests.crudCheck
    case .queue: Step4Tests.queueCheck
    case .serial: Step4Tests.serialCheck
    case .handOff: Step4Tests.handOffCheck
    case .jobsOnTheirExecutor: Step4Tests.oneExecutorCheck
    case .deadlock: Step4Tests.deadlockCheck
    case .controller: Step4Tests.controllerCheck
    case .isolationAnswers: Step4Tests.isolationCheck
    case .histories: Step4Tests.historiesCheck
    }
  }

  /// What the check teaches when its scenario ended the process.
  var died: Lesson {
    switch self {
    case .crud, .queue, .controller: Step4Tests.lesson
    case .serial: Step4Tests.serialLesson
    case .handOff: Step4Tests.handOffLesson
    case .jobsOnTheirExecutor: Step4Tests.oneExecutorLesson
    case .deadlock: Step4Tests.deadlockLesson
    case .isolationAnswers: Step4Tests.isolationLesson
    case .histories: Step4Tests.lesson
    }
  }

  func run(_ subject: Subject) async throws {
    switch self {
    case .crud: try await Step4Tests.crud(subject)
    case .queue: try await Step4Tests.queue(subject)
    case .serial: try await Step4Tests.serial(subject)
    case .handOff: try await Step4Tests.handOff(subject)
    case .jobsOnTheirExecutor: try await Step4Tests.callsHopOnlyBetween(subject)
    case .deadlock: try await Step4Tests.callEachOther(subject)
    case .controller: try await Step4Tests.controller(subject)
    case .isolationAnswers: try await Step4Tests.isolationAnswers(subject)
    case .histories: try await Step4Tests.histories(subject)
    }
  }
}

extension Step4Tests {
  /// Runs `scenario` for `subject` in a child process, and reports what it found, or how it
  /// ended the process, as its check's failure.
  static func inChildProcess(_ scenario: ChildScenario, _ subject: Subject) async {
    let result = await withExitTestOffThePool {
      await #expect(
        processExitsWith: .success, observing: [\.standardErrorContent],
        "the scenario must finish without ending its process"
      ) { [side = subject.side as ExamSide, scenario = scenario as ChildScenario] in
        let subject = Subject.every.first(of: side)
        await ChildCheck.run(scenario.check) { try await scenario.run(subject) }
      }
    }
    ChildCheck.report(result, died: scenario.died)
  }
}
