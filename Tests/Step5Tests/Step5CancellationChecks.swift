import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// Cancellation: while a caller waits, before it joins the queue, with callers behind it, and a
/// waiter resumed twice, which would end the process (so every scenario runs in a child).
extension Step5Tests {
  static let cancellationCheck = step.check(
    "a caller cancelled while waiting throws CancellationError and frees its place",
    .failsOnStarter)

  @Test(
    "a caller cancelled while waiting throws CancellationError and frees its place",
    arguments: Subject.all)
  func cancellationFreesThePlace(_ subject: Subject) async {
    await exam(subject.side, Self.cancellationCheck) {
      try await Self.inChildProcess(.cancelledWhileWaiting, subject)
    }
  }

  /// Two writes wait behind a running one; the one at the back is cancelled. It alone leaves,
  /// with CancellationError: the one ahead of it keeps its place and runs in its turn.
  static func cancelledWhileWaiting(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let holder = try await SlotHolder.take(scheduler)
    defer { holder.letGo() }
    let ahead = HeldCall(scheduler)
    ahead.letGo()
    let (queueing, outcomes) = try await holder.cancelWaitingWrites(
      1, on: scheduler, behind: 1, noneOf: [ahead.started])
    let queued = queueing.isQueued
    let outcome = outcomes[0]
    let left = scheduler.waitingCount
    try await holder.release()
    let aheadRan = try await ahead.outcome()
    let next = try await withTimeout(.seconds(20), "a write after the cancelled one") {
      try await scheduler.write { _ in "next" }
    }
    let wasCancelled: Bool
    if case .failure(let error) = outcome {
      wasCancelled = error is CancellationError
    } else {
      wasCancelled = false
    }
    var aheadSucceeded = false
    if case .success = aheadRan { aheadSucceeded = true }
    expect(
      queued && wasCancelled && left == 1 && aheadSucceeded && next == "next",
      observed: "behind a running write, two writes: \(queueing); "
        + "the one at the back, cancelled, got \(outcome), after which \(left) caller(s) were "
        + "queued (1 expected: the one ahead); the one ahead then got \(aheadRan)",
      lesson: Self.lesson(
        seeing: queueing,
        else: !queued
          ? Self.nobodyWaited
          : Self.step.lesson(
            rule: "A caller that is cancelled while it waits stops waiting at once, with "
              + "CancellationError, and leaves the queue; only it: the callers around it keep their "
              + "places.",
            hint: "The starter's `acquire` and `leave` take a cancelled waiter out of the queue "
              + "by its id and resume it with CancellationError: keep them. In your code, "
              + "`startOrWait` queues a waiter with this caller's own id, and the `defer` that "
              + "releases comes after `try await acquire(…)`: a caller whose wait threw holds no "
              + "slot to give back.", read: "the-foil")))
  }

  static let cancelledBeforeCheck = step.check(
    "a caller cancelled before it asks throws at once, slot free or not", .passesOnStarter)

  /// `withTaskCancellationHandler` runs `onCancel` at once for a task that is already cancelled,
  /// before the waiter is in the queue: only a look at `Task.isCancelled` when joining sees it.
  @Test(
    "a caller cancelled before it asks throws at once, slot free or not", arguments: Subject.all)
  func cancelledBeforeAsking(_ subject: Subject) async {
    await exam(subject.side, Self.cancelledBeforeCheck) {
      try await Self.inChildProcess(.cancelledBeforeJoining, subject)
    }
  }

  /// The caller is cancelled before it asks twice: with the slot free, then with it taken. Both
  /// times it must throw, so that whether a cancelled caller's block runs never depends on who
  /// else holds the slot.
  static func cancelledBeforeJoining(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let (_, freeOutcome, freeWait) = await writeCancelledBeforeAsking(on: scheduler)
    let freeLeft = scheduler.waitingCount
    let holder = try await SlotHolder.take(scheduler)
    defer { holder.letGo() }
    let (late, outcome, wait) = await writeCancelledBeforeAsking(on: scheduler)
    let left = scheduler.waitingCount
    try await holder.release()
    _ = await late.result
    let lesson = Self.step.lesson(
      rule: "A caller that is already cancelled when it asks throws CancellationError at once and "
        + "never runs its block, whether the slot is free or taken: otherwise whether a cancelled "
        + "write happens depends on who else holds the slot. It must not join the queue either: "
        + "the cancellation handler ran before it was queued, so it cannot take it out.",
      hint: "Under the lock that starts or queues the caller, look at `Task.isCancelled` first.",
      read: "the-foil")
    expect(
      Self.isCancellation(freeOutcome),
      observed: freeOutcome == nil
        ? "a caller cancelled before it asked, with the slot free, did not return (\(freeWait)); "
          + "\(freeLeft) caller(s) queued"
        : "a caller cancelled before it asked, with the slot free, got \(freeOutcome!)",
      lesson: lesson)
    expect(
      Self.isCancellation(outcome) && left == 0,
      observed: outcome == nil
        ? "a caller that was cancelled before it asked waited for the slot all the same "
          + "(\(wait))"
        : "a caller cancelled before it asked got \(outcome!) while the slot was taken; "
          + "\(left) caller(s) queued",
      lesson: lesson)
  }

  /// A write whose task is cancelled before it asks, and how it ended within 5 s; when it did
  /// not (or was seen queued for good), nil and what the bounded wait said. The task is returned
  /// so that the caller can wait for it after releasing the slot.
  private static func writeCancelledBeforeAsking(
    on scheduler: any Scheduler
  ) async -> (Task<String, any Error>, Result<String, any Error>?, String) {
    let caller = Task {
      _ = await eventually(within: .seconds(5)) { Task.isCancelled }
      return try await scheduler.write { _ in "ran" }
    }
    caller.cancel()
    do {
      let outcome = try await withTimeout(
        .seconds(5), "the caller cancelled before asking", stalled: scheduler.stalled
      ) { await caller.result }
      return (caller, outcome, "")
    } catch {
      return (caller, nil, "\(error)")
    }
  }

  /// True when a call ended by throwing `CancellationError`.
  private static func isCancellation(_ outcome: Result<String, any Error>?) -> Bool {
    if case .failure(let error) = outcome { return error is CancellationError }
    return false
  }

  static let resumedOnceCheck = step.check(
    "cancelled waiters are resumed once, never twice", .passesOnStarter)

  /// Resuming a continuation twice stops the process, so the scenario runs in a child process
  /// (an exit test): a wrong answer fails this check with its lesson, and the run goes on.
  @Test("cancelled waiters are resumed once, never twice", arguments: Subject.all)
  func cancelledWaitersResumedOnce(_ subject: Subject) async {
    await exam(subject.side, Self.resumedOnceCheck) {
      try await Self.inChildProcess(.threeWaitingWritesCancelled, subject)
    }
  }

  /// A write holds the slot, three writes wait behind it and are cancelled, then the slot is
  /// released and one more write runs: every continuation is resumed by then.
  static func threeWaitingWritesCancelled(_ subject: Subject) async throws {
    let (_, scheduler) = try await setUp(subject)
    let holder = try await SlotHolder.take(scheduler)
    defer { holder.letGo() }
    _ = try await holder.cancelWaitingWrites(3, on: scheduler)
    try await holder.release()
    _ = try await scheduler.write { _ in "after" }
  }

  static let leaveAdmitsCheck = step.check(
    "a waiting write that is cancelled lets the reads queued behind it start at once",
    .failsOnStarter)

  /// A waiter that leaves the queue changes its front: the reads that waited only for it may
  /// start now, beside the read that runs. Leaving without admitting them stalls them until an
  /// unrelated release.
  @Test(
    "a waiting write that is cancelled lets the reads queued behind it start at once",
    arguments: Subject.all)
  func cancelledWriteAdmitsReadsBehind(_ subject: Subject) async {
    await exam(subject.side, Self.leaveAdmitsCheck) {
      try await Self.inChildProcess(.leaveAdmits, subject)
    }
  }

  static func cancelledWriteWithReadsBehind(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let running = try await SlotHolder.take(scheduler, reading: true)
    defer { running.letGo() }
    let write = HeldCall(scheduler)
    write.letGo()
    let writeQueueing = await scheduler.queueing(1, noneOf: [write.started])
    let writeQueued = writeQueueing.isQueued
    let reads = [HeldCall(scheduler, reading: true), HeldCall(scheduler, reading: true)]
    defer { for read in reads { read.letGo() } }
    let started = [write.started] + reads.map(\.started)
    let readsQueueing = await scheduler.queueing(3, noneOf: started)
    let readsQueued = readsQueueing.isQueued
    write.cancel()
    let outcome = try await write.outcome()
    // The running read still holds its slot: only the cancelled write's leaving can let them in.
    // Bounded, and over at once when the reads are seen to stay in the queue for good.
    let stall = Mutex<String?>(nil)
    let admitted =
      await eventually(within: .seconds(5)) {
        if reads.allSatisfy({ $0.started.isOpen }) { return true }
        stall.withLock { $0 = scheduler.stalled() }
        return stall.withLock { $0 } != nil
      } && reads.allSatisfy { $0.started.isOpen }
    let left = scheduler.waitingCount
    for read in reads { read.letGo() }
    try await running.release()
    for read in reads { _ = try await read.outcome() }
    let wasCancelled: Bool
    if case .failure(let error) = outcome {
      wasCancelled = error is CancellationError
    } else {
      wasCancelled = false
    }
    expect(
      writeQueued && readsQueued && wasCancelled && admitted,
      observed: !(writeQueued && readsQueued)
        ? "behind a running read, the write: \(writeQueueing); the two reads after it: "
          + "\(readsQueueing)"
        : "the waiting write, cancelled, got \(outcome); the two reads queued behind it "
          + (admitted
            ? "started"
            : stall.withLock { $0 }.map { "did not start: \($0)" }
              ?? "had not started 5 s later, \(left) caller(s) still queued")
          + ", while a read still ran",
      lesson: Self.lesson(
        seeing: writeQueueing, readsQueueing,
        else: !(writeQueued && readsQueued)
          ? Self.nobodyWaited
          : Self.step.lesson(
            rule: "A caller that leaves the queue (cancelled, or out of time) changes its front: "
              + "whoever waited only for it may start now. Leaving without admitting them leaves "
              + "them waiting for a release that has nothing to do with them.",
            hint: "The starter's `leave` calls your `admit()` once the waiter is out: `admit()` "
              + "must keep taking the front waiter while it may start (reads together, not one), "
              + "and stop only after a write or at one that cannot start.",
            read: "leaving-the-queue")))
  }
}
