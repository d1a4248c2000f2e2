import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Cancellation at the two moments the main check does not reach: before a caller joins the
/// queue, and a waiter resumed twice, which would end the process (so it runs in a child).
extension Step5Tests {
  static let cancelledBeforeCheck = step.check(
    "a caller cancelled before it asks throws at once, slot free or not", .failsOnStarter)

  /// `withTaskCancellationHandler` runs `onCancel` at once for a task that is already cancelled,
  /// before the waiter is in the queue: only a look at `Task.isCancelled` when joining sees it.
  @Test(
    "a caller cancelled before it asks throws at once, slot free or not", arguments: Subject.all)
  func cancelledBeforeAsking(_ subject: Subject) async {
    await exam(subject.side, Self.cancelledBeforeCheck) {
      try await Self.inChildProcess(.cancelledBeforeJoining, subject)
    }
  }

  /// Runs in a child process: a wrong answer may resume a waiter twice, which ends the process.
  /// The caller is cancelled before it asks twice: with the slot free, then with it taken. Both
  /// times it must throw, so that whether a cancelled caller's block runs never depends on who
  /// else holds the slot.
  static func cancelledBeforeJoining(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let (_, freeOutcome) = await writeCancelledBeforeAsking(on: scheduler)
    let holder = await SlotHolder.take(scheduler)
    defer { holder.letGo() }
    let (late, outcome) = await writeCancelledBeforeAsking(on: scheduler)
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
        ? "a caller cancelled before it asked, with the slot free, did not finish within 5 s"
        : "a caller cancelled before it asked, with the slot free, got \(freeOutcome!)",
      lesson: lesson)
    expect(
      Self.isCancellation(outcome) && left == 0,
      observed: outcome == nil
        ? "a caller that was cancelled before it asked waited for the slot all the same"
        : "a caller cancelled before it asked got \(outcome!) while the slot was taken; "
          + "\(left) caller(s) queued",
      lesson: lesson)
  }

  /// A write whose task is cancelled before it asks, and how it ended within 5 s (nil: it did
  /// not). The task is returned so that the caller can wait for it after releasing the slot.
  private static func writeCancelledBeforeAsking(
    on scheduler: any Scheduler
  ) async -> (Task<String, any Error>, Result<String, any Error>?) {
    let caller = Task {
      _ = await eventually(within: .seconds(5)) { Task.isCancelled }
      return try await scheduler.write { _ in "ran" }
    }
    caller.cancel()
    let outcome = try? await withTimeout(.seconds(5), "the caller cancelled before asking") {
      await caller.result
    }
    return (caller, outcome)
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
  static func cancelThreeWaitingWrites(_ subject: Subject) async throws {
    let (_, scheduler) = try await setUp(subject)
    let holder = await SlotHolder.take(scheduler)
    defer { holder.letGo() }
    _ = try await holder.cancelWaitingWrites(3, on: scheduler)
    try await holder.release()
    _ = try await scheduler.write { _ in "after" }
  }
}
