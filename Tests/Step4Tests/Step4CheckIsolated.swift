import Foundation
import Step4
import Step4Solution
import Testing
import WorkshopSupport

/// `checkIsolated()` on its own. Since Swift 6.2 the runtime asks `isIsolatingCurrentContext()`
/// first and calls `checkIsolated()` only when that answer is nil, so a check through the runtime
/// can miss an empty `checkIsolated()`. This one calls it directly, in child processes, since the
/// right answer off the queue is to stop the program.
extension Step4Tests {
  static let checkIsolatedCheck = step.check(
    "checkIsolated() stops the program off the context's queue, and only there", .failsOnStarter)

  @Test(
    "checkIsolated() stops the program off the context's queue, and only there",
    arguments: Subject.all)
  func checkIsolatedStopsOffTheQueue(_ subject: Subject) async {
    #if compiler(>=6.3)
      await exam(subject.side, Self.checkIsolatedCheck) {
        let lesson = Self.step.lesson(
          rule: "checkIsolated() is the executor's last word on isolation: it returns when the "
            + "current code runs on the context's queue (inside its perform) and stops the "
            + "program anywhere else. An empty body says yes to everyone.",
          hint: "`precondition(container.isOnContextQueue, …)`.", read: "isolation-checks")
        let stopped = await #expect(
          processExitsWith: .failure,
          "checkIsolated() off the context's queue must stop the program"
        ) { [side = subject.side as ExamSide] in
          ExecutorProbe.checkIsolatedOutside(side)
        }
        expect(
          stopped != nil, observed: "checkIsolated() returned normally off the context's queue",
          lesson: lesson)
        let returned = await #expect(
          processExitsWith: .success, "checkIsolated() inside the context's perform must return"
        ) { [side = subject.side as ExamSide] in
          await ExecutorProbe.checkIsolatedInsidePerform(side)
        }
        expect(
          returned != nil,
          observed: "checkIsolated() stopped the program inside the context's perform",
          lesson: lesson)
      }
    #endif
  }
}

/// The bodies of the exit tests: each asks a side's executor directly, in a child process.
enum ExecutorProbe {
  static func checkIsolatedOutside(_ side: ExamSide) {
    switch side {
    case .yours: Step4.CoreDataExecutor.shared.checkIsolated()
    case .solution: Step4Solution.CoreDataExecutor.shared.checkIsolated()
    }
  }

  static func checkIsolatedInsidePerform(_ side: ExamSide) async {
    await IsolationProbe.insidePerform(
      side, yours: { Step4.CoreDataExecutor.shared.checkIsolated() },
      solution: { Step4Solution.CoreDataExecutor.shared.checkIsolated() })
  }
}
