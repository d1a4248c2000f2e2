import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Every Step 5 scenario that runs your scheduler. A wrong answer can end the process there: a
/// waiter resumed twice, a `try!` or a `!` that fails. So on your side each runs in a child
/// process (an exit test, which captures the scenario by name), and such an answer fails its own
/// check with a lesson while the other checks' results stand.
enum ChildScenario: String, Codable, Sendable {
  case increments
  case readsOverlap
  case writesRunAlone
  case fairness
  case throwing
  case cancelledWhileWaiting
  case readOnly
  case failedWrite
  case reentry
  case otherScheduler
  case cancelledBeforeJoining
  case threeWaitingWritesCancelled
  case leaveAdmits
  case cancelledWaiterStaysEmptyHanded
  case twoReaders
  case readsTogether
  case timedWrite
  case admissionHistories
  case cancellationHistories
  /// Not a check: a capped write on a free slot, to hear whether the stretch task's stub still
  /// says "not started".
  case stretchStub

  var check: ExamCheck {
    switch self {
    case .increments: Step5Tests.incrementsCheck
    case .readsOverlap: Step5Tests.readsOverlapCheck
    case .writesRunAlone: Step5Tests.exclusiveCheck
    case .fairness: Step5Tests.fairnessCheck
    case .throwing: Step5Tests.throwingCheck
    case .cancelledWhileWaiting: Step5Tests.cancellationCheck
    case .readOnly: Step5Tests.readOnlyCheck
    case .failedWrite: Step5Tests.freshContextCheck
    case .reentry: Step5Tests.reentryCheck
    case .otherScheduler: Step5Tests.otherSchedulerCheck
    case .cancelledBeforeJoining: Step5Tests.cancelledBeforeCheck
    case .threeWaitingWritesCancelled: Step5Tests.resumedOnceCheck
    case .leaveAdmits: Step5Tests.leaveAdmitsCheck
    case .cancelledWaiterStaysEmptyHanded: Step5Tests.cancelledHoldsNothingCheck
    case .twoReaders: Step5Tests.twoReadersCheck
    case .readsTogether: Step5Tests.readsTogetherCheck
    case .timedWrite, .stretchStub: Step5Tests.timedWriteCheck
    case .admissionHistories: Step5Tests.admissionHistoriesCheck
    case .cancellationHistories: Step5Tests.cancellationHistoriesCheck
    }
  }

  /// Runs the scenario; an error the scheduler threw where none was due fails the check with a
  /// lesson, not bare. A bounded wait that ran out is left to the step's lesson for being stuck.
  func run(_ subject: Subject) async throws {
    do {
      try await scenario(subject)
    } catch let error where !(error is TimeoutError) && !(error is ExamRequirementFailed) {
      expect(
        false, observed: "a call through the scheduler threw \(error), where none was due",
        lesson: Step5Tests.step.lesson(
          rule: "A call runs its block and returns its result, or rethrows the block's own "
            + "error. It throws an error of its own only when its caller is cancelled "
            + "(CancellationError), waited its limit (SchedulerError.timedOut) or calls from its "
            + "own block (SchedulerError.reentrantCall).",
          hint: "Look at the conditions under which your scheduler throws: each must hold only "
            + "in its own case.", read: "the-rule"))
    }
  }

  private func scenario(_ subject: Subject) async throws {
    switch self {
    case .increments: try await Step5Tests.hundredIncrements(subject)
    case .readsOverlap: try await Step5Tests.fourReads(subject)
    case .writesRunAlone: try await Step5Tests.writeAlone(subject)
    case .fairness: try await Step5Tests.readBehindWaitingWrite(subject)
    case .throwing: try await Step5Tests.blocksThatThrow(subject)
    case .cancelledWhileWaiting: try await Step5Tests.cancelledWhileWaiting(subject)
    case .readOnly: try await Step5Tests.readThatSaves(subject)
    case .failedWrite: try await Step5Tests.writeAfterFailedWrite(subject)
    case .reentry: try await Step5Tests.callBackIn(subject)
    case .otherScheduler: try await Step5Tests.callAnotherScheduler(subject)
    case .cancelledBeforeJoining: try await Step5Tests.cancelledBeforeJoining(subject)
    case .threeWaitingWritesCancelled: try await Step5Tests.threeWaitingWritesCancelled(subject)
    case .leaveAdmits: try await Step5Tests.cancelledWriteWithReadsBehind(subject)
    case .cancelledWaiterStaysEmptyHanded:
      try await Step5Tests.cancelledWaiterStaysEmptyHanded(subject)
    case .twoReaders: try await Step5Tests.readBehindWriteBehindTwoReads(subject)
    case .readsTogether: try await Step5Tests.threeReadsBehindAWrite(subject)
    case .timedWrite:
      try await Step5Tests.cappedWrites(subject)
      // The rounds that race the timer against the grant look for what the scenarios cannot
      // see; once these failed, the verdict stands, and the rounds would only wait out their
      // bounds behind a caller left stuck.
      guard !currentCheckHasFailed else { return }
      try await Step5Tests.timerAgainstGrant(subject)
    case .admissionHistories: try await Step5Tests.randomHistories(subject, level: .admission)
    case .cancellationHistories:
      try await Step5Tests.randomHistories(subject, level: .cancellation)
    case .stretchStub:
      let (_, scheduler) = try await Step5Tests.setUp(subject)
      // The task is started inside `reported`, so it inherits the listener that prints a
      // stub's call to standard error, where the parent reads it.
      let call = StretchStubs.reported {
        Task { try await scheduler.write(waitingAtMost: .seconds(5)) { _ in } }
      }
      try await call.value
    }
  }
}

extension Step5Tests {
  /// Why the process ended. Swift Testing hands over the child's output only when it exited as
  /// expected, so a crash is taught by its two usual causes; the failed expectation above the
  /// lesson says how the child ended.
  static let endedTheProcess = step.lesson(
    rule: "Nothing in the scheduler may stop the process, and a continuation resumed twice does: "
      + "a waiter is resumed exactly once, by the release that admits it or by the cancellation "
      + "(or timer) that takes it out of the queue. A waiter already gone, a cancelled sleep, a "
      + "thrown error are ordinary paths: a `!` or `try!` there stops every caller's work.",
    hint: "Resume only a continuation you removed from the queue, under the lock; `guard let` "
      + "what may be missing, `try?` what may throw (a cancelled `Task.sleep`).",
    read: "leaving-the-queue")

  /// Runs `scenario` for `subject`: in this process for the solution and in verify mode (the
  /// untouched starter and the reference cannot end a process, and a child keeps a thread of
  /// the parent waiting), else in a child process (Swift 6.3's exit tests).
  static func inChildProcess(_ scenario: ChildScenario, _ subject: Subject) async throws {
    if isVerifyMode || subject.side == .solution {
      try await scenario.run(subject)
      return
    }
    try await runInChild(scenario, subject)
  }

  /// The exit tests themselves, off the cooperative pool (``withExitTestOffThePool(_:)``).
  private static func runInChild(_ scenario: ChildScenario, _ subject: Subject) async throws {
    if scenario.check.starter == .stretch {
      // The child's issues reach this process as they happen, before its standard error is
      // read: hear the stub first, in a child of its own.
      let stub = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .success, observing: [\.standardErrorContent],
          "a capped write on a free slot must finish without ending its process"
        ) { [side = subject.side as ExamSide] in
          let subject = Subject.every.first(of: side)
          try? await ChildScenario.stretchStub.run(subject)
        }
      }
      if StretchStubs.relay(String(decoding: stub?.standardErrorContent ?? [], as: UTF8.self)) {
        // Not started: said from the stub itself, at once, not by running the scenario against
        // a stub that waits like an uncapped write until each of its bounded waits runs out.
        expect(
          false, observed: "not started: executeWrite(waitingAtMost:_:) still calls its stub",
          lesson: step.lesson(
            rule: "A capped write waits at most its limit for its turn, then leaves the queue "
              + "with SchedulerError.timedOut.",
            hint: "Optional: delete the call to StretchTask.notStarted() in "
              + "executeWrite(waitingAtMost:_:) when you start.", read: "stretch-task"))
        return
      }
    }
    let result = await withExitTestOffThePool {
      await #expect(
        processExitsWith: .success, observing: [\.standardErrorContent],
        "the scenario must finish without ending its process"
      ) { [side = subject.side as ExamSide, scenario = scenario as ChildScenario] in
        let subject = Subject.every.first(of: side)
        await ChildCheck.run(scenario.check) { try await scenario.run(subject) }
      }
    }
    ChildCheck.report(result, died: endedTheProcess)
  }
}
