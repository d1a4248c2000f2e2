import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Who holds a slot, and who may call whom: the mistakes that pass the main checks by luck.
extension Step5Tests {
  static let cancelledHoldsNothingCheck = step.check(
    "a cancelled waiting write frees no slot it did not hold", .failsOnStarter)

  /// A caller cancelled while it waits never held the slot, so it must not release one: if it
  /// did, the next write would start beside the write that still runs.
  @Test("a cancelled waiting write frees no slot it did not hold", arguments: Subject.all)
  func cancelledWaiterHoldsNothing(_ subject: Subject) async {
    await exam(subject.side, Self.cancelledHoldsNothingCheck) {
      try await Self.inChildProcess(.cancelledWaiterStaysEmptyHanded, subject)
    }
  }

  /// Runs in a child process: a wrong answer may resume a waiter twice, which ends the process.
  static func cancelledWaiterStaysEmptyHanded(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let holder = await SlotHolder.take(scheduler)
    defer { holder.letGo() }
    let (queued, _) = try await holder.cancelWaitingWrites(1, on: scheduler)
    // The next write either queues (right) or starts at once beside the holder (wrong).
    let started = Gate()
    let intruder = Task { try await scheduler.write { _ in started.open() } }
    let settled = await eventually(within: .seconds(5)) {
      started.isOpen || scheduler.waitingCount == 1
    }
    let intruded = started.isOpen
    try await holder.release()
    _ = try await withTimeout(.seconds(20), "the write after the cancelled one") {
      try await intruder.value
    }
    expect(
      queued && settled && !intruded,
      observed: queued
        ? (intruded
          ? "after a waiting write was cancelled, a new write started while the first still ran"
          : "the new write neither queued nor started within 5 s")
        : "the second write never waited behind the first",
      lesson: Self.step.lesson(
        rule: "Only a caller whose acquire returned holds a slot. A caller cancelled while waiting "
          + "holds nothing, so it releases nothing: else the next write runs beside one that "
          + "still holds the slot.",
        hint: "Write `defer { release(…) }` after `try await acquire(…)`, never before it.",
        read: "the-foil"))
  }

  static let twoReadersCheck = step.check(
    "a read queued behind a waiting write stays there when another read ends", .failsOnStarter)

  /// Fairness with more than one read running: when one of them ends, the write at the front
  /// still cannot start, and the read behind it must not slip past it.
  @Test(
    "a read queued behind a waiting write stays there when another read ends",
    arguments: Subject.all)
  func readStaysBehindWaitingWrite(_ subject: Subject) async {
    await exam(subject.side, Self.twoReadersCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      let order = Log()
      let (firstRunning, firstEnd) = (Gate(), Gate())
      let (secondRunning, secondEnd) = (Gate(), Gate())
      defer {
        firstEnd.open()
        secondEnd.open()
      }
      async let first: Void = scheduler.read { _ in
        firstRunning.open()
        _ = firstEnd.wait(timeout: .seconds(15))
      }
      async let second: Void = scheduler.read { _ in
        secondRunning.open()
        _ = secondEnd.wait(timeout: .seconds(15))
      }
      let firstStarted = await firstRunning.opened()
      let bothRunning = await secondRunning.opened() && firstStarted
      async let write: Void = scheduler.write { _ in order.append("write") }
      let writeQueued = await eventually(within: .seconds(5)) { scheduler.waitingCount == 1 }
      async let late: Void = scheduler.read { _ in order.append("read") }
      let readQueued = await eventually(within: .seconds(5)) { scheduler.waitingCount == 2 }
      firstEnd.open()
      try await first
      // The first read's release has run by now: whatever it admitted has left the queue.
      let stillQueued = scheduler.waitingCount
      secondEnd.open()
      try await second
      try await write
      try await late
      expect(
        bothRunning && writeQueued && readQueued && stillQueued == 2
          && order.all == ["write", "read"],
        observed: "two reads running, a write and a read queued behind it "
          + "(\(writeQueued && readQueued ? "both waited" : "not both waited")); when one read "
          + "ended, \(stillQueued) caller(s) still queued; they ran in the order \(order.all)",
        lesson: Self.step.lesson(
          rule:
            "First come, first served, whatever is running: a read that arrived after a waiting "
            + "write stays behind it, even when another read ends and the write still cannot "
            + "start.",
          hint: "Admit from the front of the queue only, and stop at the first caller that cannot "
            + "start.", read: "fifo-fairness"))
    }
  }

  static let otherSchedulerCheck = step.check(
    "a block of one scheduler may call another scheduler", .passesOnStarter)

  /// Re-entrance is refused per scheduler: a block waits for its own scheduler, never for another.
  @Test("a block of one scheduler may call another scheduler", arguments: Subject.all)
  func blockMayCallAnotherScheduler(_ subject: Subject) async {
    await exam(subject.side, Self.otherSchedulerCheck) {
      let (container, outer) = try await Self.setUp(subject)
      let inner = subject.make(container)
      let answer = try await outer.write { _ -> String in
        let done = Gate()
        let result = Log()
        Task {
          do {
            result.append("returned \(try await inner.read { _ in 1 })")
          } catch {
            result.append(subject.isReentrantCall(error) ? "was refused" : "threw \(error)")
          }
          done.open()
        }
        return done.wait(timeout: .seconds(15)) ? result.all.joined() : "never returned"
      }
      expect(
        answer == "returned 1",
        observed: "a read on a second scheduler, from a write block, \(answer)",
        lesson: Self.step.lesson(
          rule:
            "Re-entrance is about one scheduler: a block that calls its own scheduler would wait "
            + "for itself, but another scheduler's slot is free.",
          hint: "Compare the task-local with this scheduler's identity, not with nil.",
          read: "re-entrance"))
    }
  }
}
