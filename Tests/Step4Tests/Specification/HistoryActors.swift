import Step4
import Step4Solution
import WorkshopSupport

// Two more global actors per side, each on an executor of the side's type with a context of its
// own. With CoreDataActor and the spare actor, a random program has four executors on four
// contexts: enough for jobs of one to land on another's queue, and for isolation questions asked
// in a job of one about the others. Global actors, because `Task { @SomeActor in … }` hands its
// job to the executor's `enqueue` before `Task.init` returns (SE-0431): the history knows when a
// job was enqueued, which a hop through `await` would hide.

@globalActor
actor YourLedgerActor {
  static let shared = YourLedgerActor()
  static let container = Step4.ContextContainer(name: "ledger yours")
  static let executor = Step4.CoreDataExecutor(container: container)

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    Self.executor.asUnownedSerialExecutor()
  }
}

@globalActor
actor YourInboxActor {
  static let shared = YourInboxActor()
  static let container = Step4.ContextContainer(name: "inbox yours")
  static let executor = Step4.CoreDataExecutor(container: container)

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    Self.executor.asUnownedSerialExecutor()
  }
}

@globalActor
actor SolutionLedgerActor {
  static let shared = SolutionLedgerActor()
  static let container = Step4Solution.ContextContainer(name: "ledger solution")
  static let executor = Step4Solution.CoreDataExecutor(container: container)

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    Self.executor.asUnownedSerialExecutor()
  }
}

@globalActor
actor SolutionInboxActor {
  static let shared = SolutionInboxActor()
  static let container = Step4Solution.ContextContainer(name: "inbox solution")
  static let executor = Step4Solution.CoreDataExecutor(container: container)

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    Self.executor.asUnownedSerialExecutor()
  }
}

extension ActorAndContext {
  /// The four actors a random program uses on a side: CoreDataActor first.
  static func all(_ side: ExamSide) -> [ActorAndContext] {
    switch side {
    case .yours: [.yourCoreDataActor, .yourSpare, .yourLedger, .yourInbox]
    case .solution: [.solutionCoreDataActor, .solutionSpare, .solutionLedger, .solutionInbox]
    }
  }

  static let yourLedger = ActorAndContext(
    actor: YourLedgerActor.shared, executor: YourLedgerActor.executor,
    container: YourLedgerActor.container,
    startTask: { body in Task { @YourLedgerActor in body() } })

  static let yourInbox = ActorAndContext(
    actor: YourInboxActor.shared, executor: YourInboxActor.executor,
    container: YourInboxActor.container,
    startTask: { body in Task { @YourInboxActor in body() } })

  static let solutionLedger = ActorAndContext(
    actor: SolutionLedgerActor.shared, executor: SolutionLedgerActor.executor,
    container: SolutionLedgerActor.container,
    startTask: { body in Task { @SolutionLedgerActor in body() } })

  static let solutionInbox = ActorAndContext(
    actor: SolutionInboxActor.shared, executor: SolutionInboxActor.executor,
    container: SolutionInboxActor.container,
    startTask: { body in Task { @SolutionInboxActor in body() } })
}
