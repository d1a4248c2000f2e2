import Foundation
import Step4
import Step4Solution
import Testing
import WorkshopSupport

/// The runtime's isolation questions, asked of the executor inside and outside the context's
/// perform: directly (`isIsolatingCurrentContext()`), and through the runtime
/// (`preconditionIsolated()`, in child processes, since the right answer off the queue is to stop
/// the program).
extension Step4Tests {
  static let isolationCheck = step.check(
    "the executor's isolation checks agree with the context's queue", .failsOnStarter)

  static let isolationLesson = step.lesson(
    rule: "The runtime asks an executor whether the current code is isolated to it "
      + "(isIsolatingCurrentContext, checkIsolated) when it cannot tell by itself: inside a "
      + "plain perform block of the executor's own context, the answer is yes; anywhere "
      + "else, even in another context's perform, no.",
    hint: "Ask the container whether the current code is inside the context's perform: the "
      + "perform scope, not the thread, is the answer to both questions.",
    read: "the-runtimes-isolation-questions")

  /// What the two executors answer to `isIsolatingCurrentContext()`, directly.
  static func isolationAnswers(_ subject: Subject) async throws {
    let shared = await askIsolation(of: subject.shared, other: subject.spare)
    expect(
      shared.agree,
      observed: "isIsolatingCurrentContext() answered \(shared.described)", lesson: isolationLesson)
    // An executor on a context of its own answers for its own context, not the shared one.
    let spare = await askIsolation(of: subject.spare, other: subject.shared)
    expect(
      spare.agree,
      observed: "isIsolatingCurrentContext() of an executor on a context of its own answered "
        + spare.described,
      lesson: isolationLesson)
  }

  @Test(
    "the executor's isolation checks agree with the context's queue",
    arguments: Subject.all)
  func isolationChecksAgreeWithTheQueue(_ subject: Subject) async {
    await exam(subject.side, Self.isolationCheck) {
      let lesson = Self.isolationLesson
      // Asked in a child process: an answer that stops the program ends only that process.
      await Self.inChildProcess(.isolationAnswers, subject)
      let side = subject.side
      let insideStatus = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .success,
          "CoreDataActor.shared.preconditionIsolated() must hold inside a plain perform block"
        ) { [side = side as ExamSide] in
          await IsolationProbe.preconditionInsidePerform(side)
        }
      }
      expect(
        insideStatus != nil,
        observed: "preconditionIsolated() stopped the program inside the context's perform",
        lesson: lesson)
      let outsideStatus = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .failure,
          "CoreDataActor.shared.preconditionIsolated() must stop the program off the queue"
        ) { [side = side as ExamSide] in
          IsolationProbe.preconditionOutside(side)
        }
      }
      expect(
        outsideStatus != nil,
        observed: "preconditionIsolated() let code off the context's queue through",
        lesson: lesson)
    }
  }
}

/// The bodies of the exit tests: they run in a child process, which may crash.
enum IsolationProbe {
  /// Runs the side's `body` inside a plain perform block of that side's shared context.
  static func insidePerform(
    _ side: ExamSide, yours: @escaping @Sendable () -> Void,
    solution: @escaping @Sendable () -> Void
  ) async {
    await withCheckedContinuation { continuation in
      switch side {
      case .yours:
        Step4.ContextContainer.shared.perform {
          yours()
          continuation.resume()
        }
      case .solution:
        Step4Solution.ContextContainer.shared.perform {
          solution()
          continuation.resume()
        }
      }
    }
  }

  static func preconditionInsidePerform(_ side: ExamSide) async {
    await insidePerform(
      side, yours: { Step4.CoreDataActor.shared.preconditionIsolated() },
      solution: { Step4Solution.CoreDataActor.shared.preconditionIsolated() })
  }

  static func preconditionOutside(_ side: ExamSide) {
    switch side {
    case .yours: Step4.CoreDataActor.shared.preconditionIsolated()
    case .solution: Step4Solution.CoreDataActor.shared.preconditionIsolated()
    }
  }
}
