import Foundation
import Synchronization
import Testing
import WorkshopSupport

/// The runtime knows an executor only by an unowned reference, and decides whether a call must
/// hop by comparing the executor a job runs on with the callee's. This check looks at both
/// sides of that: the actor's executor is one object, and each job runs on the executor that
/// enqueued it, seen from the order in which the context's own queue runs things.
extension Step4Tests {
  static let oneExecutorCheck = step.check(
    "the actor keeps one executor, and each job runs on the executor that enqueued it",
    .failsOnStarter)

  static let oneExecutorLesson = step.lesson(
    rule: "The runtime holds an actor's executor unowned, and hops between two executors only "
      + "when they differ. So the actor names one executor, made once and alive as long as the "
      + "actor, and enqueue runs each job on that same executor, itself: on another one the "
      + "runtime hops where it need not, skips hops it needs, or uses a freed object.",
    hint: "unownedExecutor returns the unowned form of CoreDataExecutor.shared, a stored "
      + "executor, never a new one; in enqueue, run the job on asUnownedSerialExecutor() of "
      + "self.",
    read: "one-executor-and-its-own-jobs")

  @Test(
    "the actor keeps one executor, and each job runs on the executor that enqueued it",
    arguments: Subject.all)
  func jobsRunOnTheirExecutor(_ subject: Subject) async {
    await exam(subject.side, Self.oneExecutorCheck) {
      // Here no job runs, so nothing can touch an executor that was freed.
      let (first, second) = Self.executorAskedTwice(subject.actor)
      expect(
        sameExecutor(first, second),
        observed: "CoreDataActor.shared.unownedExecutor named another executor the second time "
          + "it was asked: a new executor per call, which nothing keeps alive once the call "
          + "returns",
        lesson: Self.oneExecutorLesson)
      // A job run on a freed executor may end its process.
      await Self.inChildProcess(.jobsOnTheirExecutor, subject)
    }
  }

  /// The actor's executor, asked for twice. Had the first answer been made for the call and
  /// freed, the objects made in between take its memory, so that a second executor made for
  /// the second call cannot be mistaken for the first at the same address.
  static func executorAskedTwice(
    _ actor: any Actor
  ) -> (UnownedSerialExecutor, UnownedSerialExecutor) {
    let first = actor.unownedExecutor
    let fillers: [AnyObject] =
      (0..<64).map { _ in Filler() }
      + stride(from: 8, through: 256, by: 8).flatMap { size in
        (0..<2).map { _ in [UInt8](repeating: 0, count: size) as AnyObject }
      }
    let second = actor.unownedExecutor
    withExtendedLifetime(fillers) {}
    return (first, second)
  }

  /// Jobs on the spare actor and on CoreDataActor: a call within a job's own actor runs at once,
  /// and a call from the spare actor into CoreDataActor hops onto CoreDataActor's queue.
  static func callsHopOnlyBetween(_ subject: Subject) async throws {
    try await requireHandOff(subject.spare)
    let spare = try await withTimeout(.seconds(10), "a call within a job of the spare actor") {
      try await callWithinAJob(of: subject.spare.actor, container: subject.spare.container)
    }
    expect(
      spare,
      observed: "in a job of an actor whose executor is a CoreDataExecutor (not the shared one), "
        + "a call to a function isolated to the same actor waited behind a block queued on the "
        + "context during the job: the runtime hopped, so the job did not run on that executor",
      lesson: oneExecutorLesson)
    // CoreDataActor's own jobs, once they run on its context's queue (another check sees to it).
    let container = subject.shared.container
    let onQueue = try await withTimeout(.seconds(10), "a job of CoreDataActor") {
      await isOnQueue(on: subject.actor) { container.isOnContextQueue }
    }
    guard onQueue else { return }
    let shared = try await withTimeout(.seconds(10), "a call within a job of CoreDataActor") {
      try await callWithinAJob(of: subject.actor, container: container)
    }
    expect(
      shared,
      observed: "in a job of CoreDataActor, a call to a function isolated to CoreDataActor "
        + "waited behind a block queued on the context during the job: the runtime hopped, so "
        + "the job did not run on CoreDataActor's executor",
      lesson: oneExecutorLesson)
    let hopped = try await withTimeout(.seconds(10), "a call from the spare actor") {
      await callInto(subject.actor, from: subject.spare.actor) { container.isOnContextQueue }
    }
    expect(
      hopped,
      observed: "code on CoreDataActor, called from a job of an actor whose executor is a "
        + "CoreDataExecutor on another context, ran on that other context's queue: the runtime "
        + "skipped the hop, because that job ran on CoreDataActor's executor",
      lesson: oneExecutorLesson)
  }

  /// In a job of `actor`: queues a block on its context, then calls a function isolated to the
  /// same actor, reached through another reference so that the runtime, not the compiler,
  /// decides whether to hop. True when the call ran before the block: no hop.
  static func callWithinAJob(of actor: any Actor, container: any SideContainer) async throws
    -> Bool
  {
    let order = Order()
    let blockRan = Gate()
    await queueThenCall(on: actor, again: actor, container: container, order, blockRan)
    guard await blockRan.opened() else {
      throw TimeoutError(what: "a block queued on the context", timeout: defaultWaitTimeout)
    }
    return order.items == ["call", "block"]
  }
}

/// An object as small as an executor, to take a freed executor's memory.
private final class Filler {
  let word = 0
}

/// What ran, in order, from any thread.
final class Order: Sendable {
  private let list = Mutex<[String]>([])

  func append(_ item: String) { list.withLock { $0.append(item) } }
  var items: [String] { list.withLock { $0 } }
}

private func queueThenCall(
  on actor: isolated any Actor, again: any Actor, container: any SideContainer, _ order: Order,
  _ blockRan: Gate
) async {
  container.perform {
    order.append("block")
    blockRan.open()
  }
  await note("call", in: order, on: again)
}

private func note(_ item: String, in order: Order, on actor: isolated any Actor) {
  order.append(item)
}

/// From a job of `caller`, whether code on `actor` runs on its context's queue.
private func callInto(
  _ actor: any Actor, from caller: isolated any Actor,
  _ isOnContextQueue: @escaping @Sendable () -> Bool
) async -> Bool {
  await isOnQueue(on: actor, isOnContextQueue)
}
