import Foundation
import Testing
import WorkshopSupport

/// What `enqueue` does with a job, asked of the context's own serial queue rather than waited
/// for: a job handed to `perform` before `enqueue` returned is ahead of any block queued after.
extension Step4Tests {
  static let handOffCheck = step.check(
    "enqueue hands each job to the context's perform before it returns", .failsOnStarter)

  static let handOffLesson = step.lesson(
    rule: "enqueue hands the job to the context's perform before it returns, and only that: the "
      + "job then runs once, on the context's queue, behind the blocks already queued and ahead "
      + "of those queued later. A job dropped never runs; one passed on later (through a Task, "
      + "another queue) runs out of order, and only if a thread is free to pass it on.",
    hint: "In enqueue, call container.perform directly, with a block that runs the job on this "
      + "executor: no Task around it, no other queue in between.",
    read: "hand-the-job-over-at-once")

  @Test(
    "enqueue hands each job to the context's perform before it returns", arguments: Subject.all)
  func enqueueHandsTheJobOver(_ subject: Subject) async {
    await exam(subject.side, Self.handOffCheck) {
      await Self.inChildProcess(.handOff, subject)
    }
  }

  /// In a child process: tasks started on the spare actor, each followed at once by a block on
  /// its context, first as they come, then with every thread of the cooperative pool held, so
  /// that a job passed on through a Task cannot reach the context before the block does.
  static func handOff(_ subject: Subject) async throws {
    let rounds = 20
    let spare = subject.spare
    let (round, held) = try await withTimeout(.seconds(30), "jobs handed over") {
      let round = try await offThePool { try HandOffProbe.firstRoundNotHandedOver(spare, rounds) }
      guard round == nil else { return (round, false) }
      try await requireItsOwnQueue(spare)
      let whileHeld = try await HandOffProbe.withThePoolHeld {
        try HandOffProbe.firstRoundNotHandedOver(spare, 3)
      }
      return (whileHeld ?? nil, true)
    }
    expect(
      round == nil,
      observed: "a task was started on an actor whose executor is a CoreDataExecutor, and a "
        + "block was queued on that executor's context right after: the block ran before the "
        + "task's job"
        + (held
          ? ", while every thread of the cooperative pool was busy (round \(round ?? 0) of 3). "
          : " (round \(round ?? 0) of \(rounds)). ")
        + "When enqueue returned, the job was not in the context's queue: "
        + (held ? "it waited for a thread of the pool to be queued" : "dropped, or passed on"),
      lesson: Self.handOffLesson)
  }

  /// Fails the check at once when an executor of the side's type does not hand its jobs to the
  /// context: every scenario after this would wait for jobs that never run.
  static func requireHandOff(_ spare: ActorAndContext) async throws {
    let round = try await withTimeout(.seconds(10), "3 jobs handed over") {
      try await offThePool { try HandOffProbe.firstRoundNotHandedOver(spare, 3) }
    }
    try require(
      round == nil,
      observed: "a task was started on an actor whose executor is a CoreDataExecutor, and a "
        + "block was queued on that executor's context right after: the block ran before the "
        + "task's job. When enqueue returned, the job was not in the context's queue: dropped, "
        + "or passed on to be queued later",
      lesson: handOffLesson)
    try await requireItsOwnQueue(spare)
  }

  /// Fails the check when a job of `spare` runs off its own context's queue.
  static func requireItsOwnQueue(_ spare: ActorAndContext) async throws {
    let onItsQueue = try await withTimeout(.seconds(10), "a job of an actor on its executor") {
      await isOnQueue(on: spare.actor) { spare.container.isOnContextQueue }
    }
    try require(
      onItsQueue,
      observed: "a job of an actor whose executor is a CoreDataExecutor on a context of its own "
        + "ran off that context's queue: enqueue handed it to another queue",
      lesson: handOffLesson)
  }
}

enum HandOffProbe {
  /// Each round starts a task on `spare` (`Task.init` calls its executor's `enqueue`), then at
  /// once queues a plain block on the same context; the block looks whether the job has run.
  /// The first round in which it had not, or nil. An `enqueue` that passes the job on through a
  /// `Task` loses this race to the thread that queues the block, round after round: its task
  /// must first be scheduled on another thread.
  static func firstRoundNotHandedOver(_ spare: ActorAndContext, _ rounds: Int) throws -> Int? {
    for round in 1...rounds {
      let ran = Flag()
      let sawTheJobRun = Flag()
      let looked = Gate()
      spare.startTask { ran.set() }
      spare.container.perform {
        if ran.isSet { sawTheJobRun.set() }
        looked.open()
      }
      guard looked.wait(timeout: defaultWaitTimeout) else {
        throw TimeoutError(what: "a block queued on the context", timeout: defaultWaitTimeout)
      }
      if !sawTheJobRun.isSet { return round }
    }
    return nil
  }

  /// Runs `body` on a thread of its own while every thread of the cooperative pool waits: one
  /// per active processor (on Linux the runtime's global queue is that wide, and Darwin's pool
  /// has a thread per core). Only for a child process, where nothing else needs the pool; the
  /// threads wait for at most a few seconds. Nil, without running `body`, when they could not
  /// all be taken.
  static func withThePoolHeld<Value: Sendable>(
    _ body: @escaping @Sendable () throws -> Value
  ) async throws -> Value? {
    let width = ProcessInfo.processInfo.activeProcessorCount
    let taken = Barrier(parties: width + 1)
    let release = Gate()
    for _ in 0..<width {
      Task.detached {
        // Blocking on purpose: these waits are what keeps the pool busy.
        if taken.arriveAndWait(timeout: .seconds(5)) { release.wait(timeout: .seconds(5)) }
      }
    }
    return try await offThePool {
      defer { release.open() }
      guard taken.arriveAndWait(timeout: .seconds(5)) else { return nil }
      return try body()
    }
  }

  /// True when `enqueue`, called while the context's queue runs another block, returns only
  /// once that block has ended: it waits for the queue. The block holds the queue until enqueue
  /// returns, or until `patience` runs out; only a blocking enqueue costs that time.
  static func enqueueWaitsForTheQueue(
    _ spare: ActorAndContext, patience: Duration = .seconds(2)
  ) async throws -> Bool {
    try await withTimeout(.seconds(10), "an enqueue while the context's queue was busy") {
      try await offThePool {
        let holding = Gate()
        let returned = Gate()
        let gaveUp = Flag()
        let store = spare.container.persistentContainer
        spare.container.perform {
          holding.open()
          // An enqueue that waits in `performAndWait` for this queue is seen at once, from the
          // container (nothing else uses it meanwhile: the suite is serialized); one that blocks
          // some other way, once `patience` has passed.
          let deadline = ContinuousClock.now + patience
          while !returned.wait(timeout: .milliseconds(5)) {
            if store.threadsInPerformAndWait > 0 || ContinuousClock.now >= deadline {
              gaveUp.set()
              return
            }
          }
        }
        guard holding.wait(timeout: defaultWaitTimeout) else {
          throw TimeoutError(what: "a block queued on the context", timeout: defaultWaitTimeout)
        }
        spare.startTask {}
        returned.open()
        return gaveUp.isSet
      }
    }
  }
}
