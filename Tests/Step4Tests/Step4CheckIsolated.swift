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
    await exam(subject.side, Self.checkIsolatedCheck) {
      let lesson = Self.step.lesson(
        rule: "checkIsolated() is the executor's last word on isolation: it returns when the "
          + "current code runs on the context's queue (inside its perform) and stops the "
          + "program anywhere else. An empty body says yes to everyone.",
        hint: "checkIsolated() must stop the program when the current code is not inside the "
          + "context's perform; ask the container, not the thread.", read: "isolation-checks")
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
  }
}

extension Step4Tests {
  static let checkIsolatedMessageCheck = step.check(
    "checkIsolated() stops with a message that names the context it expects",
    .stretch)

  /// The stretch task: the message a crash off the queue leaves, read from the child's standard
  /// error. An executor on a context named "ledger", asked off its queue.
  @Test(
    "checkIsolated() stops with a message that names the context it expects",
    arguments: Subject.all)
  func checkIsolatedSaysWhere(_ subject: Subject) async {
    await exam(subject.side, Self.checkIsolatedMessageCheck) {
      let lesson = Self.step.lesson(
        rule: "A crash is read by someone who was not there. checkIsolated()'s message names "
          + "the context whose queue the code should be on: an app may run several.",
        hint: "Build the message from the name of the container's context.",
        read: "stretch-task")
      let result = await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent],
        "checkIsolated() off the context's queue must stop the program"
      ) { [side = subject.side as ExamSide] in
        ExecutorProbe.checkIsolatedOffTheLedger(side)
      }
      let said = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
      let lastLines = said.split(separator: "\n").filter {
        $0.contains("error:") || $0.contains("failed:")
      }.suffix(2).joined(separator: "\n  ")
      expect(
        said.contains("'ledger'"),
        observed:
          "checkIsolated() off the queue of the context named 'ledger' stopped with:\n  \(lastLines)",
        lesson: lesson)
    }
  }
}

/// The bodies of the exit tests: each asks a side's executor directly, in a child process.
enum ExecutorProbe {
  /// An executor on a context named "ledger", asked off its queue.
  static func checkIsolatedOffTheLedger(_ side: ExamSide) {
    switch side {
    case .yours:
      Step4.CoreDataExecutor(container: Step4.ContextContainer(name: "ledger")).checkIsolated()
    case .solution:
      Step4Solution.CoreDataExecutor(container: Step4Solution.ContextContainer(name: "ledger"))
        .checkIsolated()
    }
  }

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
