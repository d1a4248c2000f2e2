import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// The stretch task: a write that waits at most a given time, and leaves the queue as a
/// cancelled caller does.
extension Step5Tests {
  static let timedWriteCheck = step.check(
    "a write that waits longer than its limit throws SchedulerError.timedOut and leaves the queue",
    .stretch)

  @Test(
    "a write that waits longer than its limit throws SchedulerError.timedOut and leaves the queue",
    arguments: Subject.all)
  func timedWrite(_ subject: Subject) async {
    await exam(subject.side, Self.timedWriteCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      // A write that gets its turn at once runs as any write.
      let inTime = try await scheduler.write(waitingAtMost: .seconds(5)) { _ in "in time" }
      let holder = await SlotHolder.take(scheduler)
      defer { holder.letGo() }
      let outcome = Log()
      let timed = Task {
        do {
          try await scheduler.write(waitingAtMost: .milliseconds(100)) { _ in
            outcome.append("ran")
          }
          outcome.append("returned")
        } catch {
          outcome.append(subject.isTimedOut(error) ? "timed out" : "threw \(error)")
        }
      }
      // Bounded: a limit that is ignored leaves the write waiting for the holder.
      let settled = await eventually(within: .seconds(5)) { !outcome.all.isEmpty }
      let left = scheduler.waitingCount
      try await holder.release()
      // Bounded too: a caller that nobody resumes never returns, even once the slot is free.
      let returned = try await finishes(within: .seconds(5), "the write with a 100 ms limit") {
        await timed.value
      }
      if !returned { timed.cancel() }
      // The caller that gave up held no slot: the next write gets its turn.
      let next = try await scheduler.write { _ in "next" }
      expect(
        inTime == "in time" && settled && returned && outcome.all == ["timed out"] && left == 0
          && next == "next",
        observed: "a write with a 100 ms limit, behind a write that held the slot: "
          + (settled ? outcome.all.joined(separator: ", ") : "still waiting after 5 s")
          + "; \(left) caller(s) still queued then"
          + (returned ? "" : "; the write had not returned 5 s after the slot was free"),
        lesson: Self.step.lesson(
          rule: "A caller that has waited its limit gives up as a cancelled caller does: it "
            + "leaves the queue at once, with its own error, and holds no slot; one that gets "
            + "its turn in time runs as any write.",
          hint: "Reuse the way a cancelled waiter leaves the queue; what starts the leaving here "
            + "is a timer, started once the caller waits.", read: "stretch-task"))
    }
  }
}
