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
          + "context's perform; ask the container, not the thread.",
        read: "the-runtimes-isolation-questions")
      let stopped = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .failure,
          "checkIsolated() off the context's queue must stop the program"
        ) { [side = subject.side as ExamSide] in
          ExecutorProbe.checkIsolatedOutside(side)
        }
      }
      expect(
        stopped != nil, observed: "checkIsolated() returned normally off the context's queue",
        lesson: lesson)
      let returned = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .success, "checkIsolated() inside the context's perform must return"
        ) { [side = subject.side as ExamSide] in
          await ExecutorProbe.checkIsolatedInsidePerform(side)
        }
      }
      expect(
        returned != nil,
        observed: "checkIsolated() stopped the program inside the context's perform",
        lesson: lesson)
      // An executor on a context of its own, asked in its own perform and in the shared one's.
      let ownReturned = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .success,
          "checkIsolated() of an executor on a context of its own must return in its perform"
        ) { [side = subject.side as ExamSide] in
          await ExecutorProbe.spareCheckIsolated(side, inItsOwnPerform: true)
        }
      }
      expect(
        ownReturned != nil,
        observed: "checkIsolated() of an executor on a context of its own stopped the program "
          + "inside that context's perform",
        lesson: lesson)
      let elsewhereStopped = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .failure,
          "checkIsolated() of an executor must stop the program in another context's perform"
        ) { [side = subject.side as ExamSide] in
          await ExecutorProbe.spareCheckIsolated(side, inItsOwnPerform: false)
        }
      }
      expect(
        elsewhereStopped != nil,
        observed: "checkIsolated() of an executor on a context of its own returned inside "
          + "another context's perform",
        lesson: lesson)
    }
  }
}

extension Step4Tests {
  static let checkIsolatedMessageCheck = step.check(
    "checkIsolated() stops with a message that names the context it expects",
    .stretch)

  /// The stretch task: the message a crash off the queue leaves, read from the child's standard
  /// error. An executor on a context named "ledger", asked inside its perform, then off its
  /// queue. The task builds on `checkIsolated()`: until that returns inside the perform and
  /// stops the program off the queue, the task cannot have been started.
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
      let result = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .failure, observing: [\.standardErrorContent],
          "the child process ends with a failure, whatever checkIsolated() does"
        ) { [side = subject.side as ExamSide] in
          await ExecutorProbe.checkIsolatedOnAndOffTheLedger(side)
        }
      }
      let said = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
      // The stub of `offTheQueue()` ran in the child: it says so there.
      StretchStubs.relay(said)
      // What the child said once checkIsolated() had returned inside the perform: the crash
      // off the queue, whose message the task is about.
      let offTheQueue = said.range(of: ExecutorProbe.returnedInside).map {
        String(said[$0.upperBound...])
      }
      let inside = offTheQueue != nil
      let outside = said.contains(ExecutorProbe.returnedOutside)
      if !inside || outside {
        StretchStubs.cannotHaveStarted(
          because: "checkIsolated() is not written yet: the stretch task builds on it")
      }
      let lastLines = (offTheQueue ?? said).split(separator: "\n").filter {
        $0.contains("error:") || $0.contains("failed:")
      }.suffix(2).joined(separator: "\n  ")
      expect(
        inside && !outside && offTheQueue?.contains("'ledger'") == true,
        observed: !inside
          ? "checkIsolated() stopped the program inside the perform of the context named "
            + "'ledger', so the stretch task cannot be judged yet (the check 'checkIsolated() "
            + "stops the program off the context's queue, and only there' says why):\n  \(lastLines)"
          : outside
            ? "checkIsolated() returned off the queue of the context named 'ledger': there is no "
              + "message to read yet (the check 'checkIsolated() stops the program off the "
              + "context's queue, and only there' says why)"
            : "checkIsolated() off the queue of the context named 'ledger' stopped with:\n  "
              + lastLines,
        lesson: lesson)
    }
  }
}

/// The bodies of the exit tests: each asks a side's executor directly, in a child process.
enum ExecutorProbe {
  /// What the child prints when `checkIsolated()` returns inside the context's perform.
  static let returnedInside = "checkIsolated() returned inside the ledger's perform"
  /// What the child prints when `checkIsolated()` returns off the context's queue.
  static let returnedOutside = "checkIsolated() returned off the ledger's queue"

  /// An executor on a context named "ledger", asked inside its perform (where it must return),
  /// then off its queue (where it must stop the program, with the message the check reads). The
  /// child always ends with a failure, so that the check can read what happened.
  static func checkIsolatedOnAndOffTheLedger(_ side: ExamSide) async {
    let container: any SideContainer
    let check: @Sendable () -> Void
    switch side {
    case .yours:
      let ledger = Step4.ContextContainer(name: "ledger")
      let executor = Step4.CoreDataExecutor(container: ledger)
      (container, check) = (ledger, { executor.checkIsolated() })
    case .solution:
      let ledger = Step4Solution.ContextContainer(name: "ledger")
      let executor = Step4Solution.CoreDataExecutor(container: ledger)
      (container, check) = (ledger, { executor.checkIsolated() })
    }
    await withCheckedContinuation { continuation in
      container.perform {
        check()
        continuation.resume()
      }
    }
    FileHandle.standardError.write(Data("\(returnedInside)\n".utf8))
    StretchStubs.reported { check() }
    FileHandle.standardError.write(Data("\(returnedOutside)\n".utf8))
    exit(EXIT_FAILURE)
  }

  /// The spare executor's `checkIsolated()`, inside its own context's perform or the shared
  /// context's.
  static func spareCheckIsolated(_ side: ExamSide, inItsOwnPerform: Bool) async {
    let (spare, shared): (ActorAndContext, ActorAndContext) =
      side == .yours ? (.yourSpare, .yourCoreDataActor) : (.solutionSpare, .solutionCoreDataActor)
    let place = inItsOwnPerform ? spare.container : shared.container
    let executor = spare.executor
    await withCheckedContinuation { continuation in
      place.perform {
        executor.checkIsolated()
        continuation.resume()
      }
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
