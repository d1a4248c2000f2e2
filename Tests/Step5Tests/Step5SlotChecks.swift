import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Who holds a slot, and who is let in when it is given back: the mistakes that pass the main
/// checks by luck.
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

  static func cancelledWaiterStaysEmptyHanded(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let holder = try await SlotHolder.take(scheduler)
    defer { holder.letGo() }
    let (queueing, _) = try await holder.cancelWaitingWrites(1, on: scheduler)
    let queued = queueing.isQueued
    // The next write either queues (right) or starts at once beside the holder (wrong).
    let intruder = HeldCall(scheduler)
    intruder.letGo()
    let settling = await scheduler.queueing(1, noneOf: [intruder.started])
    let settled = settling.isQueued
    let intruded = intruder.started.isOpen
    try await holder.release()
    _ = try await intruder.outcome()
    expect(
      queued && settled && !intruded,
      observed: queued
        ? (intruded
          ? "after a waiting write was cancelled, a new write started while the first still ran"
          : "after a waiting write was cancelled, a new write: \(settling)")
        : "the second write, sent while the first ran: \(queueing)",
      lesson: Self.lesson(
        seeing: queueing, settling,
        else: !queued
          ? Self.nobodyWaited
          : Self.step.lesson(
            rule:
              "Only a caller whose acquire returned holds a slot. A caller cancelled while waiting "
              + "holds nothing, so it releases nothing: else the next write runs beside one that "
              + "still holds the slot.",
            hint: "Write `defer { release(…) }` after `try await acquire(…)`, never before it.",
            read: "the-foil")))
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
      try await Self.inChildProcess(.twoReaders, subject)
    }
  }

  static func readBehindWriteBehindTwoReads(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let order = Log()
    let first = try await SlotHolder.take(scheduler, reading: true)
    let second = try await SlotHolder.take(scheduler, reading: true)
    defer {
      first.letGo()
      second.letGo()
    }
    let write = HeldCall(scheduler, log: order, as: "write")
    write.letGo()
    let writeQueueing = await scheduler.queueing(1, noneOf: [write.started])
    let writeQueued = writeQueueing.isQueued
    let late = HeldCall(scheduler, reading: true, log: order, as: "read")
    late.letGo()
    let readQueueing = await scheduler.queueing(2, noneOf: [write.started, late.started])
    let readQueued = readQueueing.isQueued
    try await first.release()
    // The first read's release has run by now: whatever it admitted has left the queue.
    let stillQueued = scheduler.waitingCount
    try await second.release()
    _ = try await write.outcome()
    _ = try await late.outcome()
    expect(
      writeQueued && readQueued && stillQueued == 2 && order.all == ["write", "read"],
      observed: "two reads running, then a write and a read sent "
        + "(the write: \(writeQueueing); the read: \(readQueueing)); when one read "
        + "ended, \(stillQueued) caller(s) still queued; they ran in the order \(order.all)",
      lesson: Self.lesson(
        seeing: writeQueueing, readQueueing,
        else: Self.step.lesson(
          rule:
            "First come, first served, whatever is running: a read that arrived after a waiting "
            + "write stays behind it, even when another read ends and the write still cannot "
            + "start.",
          hint: readQueueing.startedAtOnce
            ? "In `startOrWait`, a new caller starts at once only when nobody waits ahead "
              + "(`state.waiting.isEmpty`) and `canStart` allows it; otherwise it joins the back "
              + "of the queue."
            : "In `admit()`, take waiters from the front of the queue only, and stop at the first "
              + "that cannot start.", read: "fifo-fairness")))
  }

  static let readsTogetherCheck = step.check(
    "reads queued behind a write all start together when it ends", .failsOnStarter)

  /// A write ends with three reads queued behind it: its release admits all three at once, not
  /// one now and the next when that one ends.
  @Test("reads queued behind a write all start together when it ends", arguments: Subject.all)
  func queuedReadsStartTogether(_ subject: Subject) async {
    await exam(subject.side, Self.readsTogetherCheck) {
      try await Self.inChildProcess(.readsTogether, subject)
    }
  }

  static func threeReadsBehindAWrite(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let write = try await SlotHolder.take(scheduler)
    defer { write.letGo() }
    let reads = (0..<3).map { _ in HeldCall(scheduler, reading: true) }
    defer { for read in reads { read.letGo() } }
    let queueing = await scheduler.queueing(3, noneOf: reads.map(\.started))
    let queued = queueing.isQueued
    try await write.release()
    // The write's release has run: the reads it admitted have left the queue, and each is on
    // its way into its block, where it stays until all three are seen inside.
    let leftBehind = scheduler.waitingCount
    // Bounded, and over at once when the reads left in the queue are seen to stay there.
    let together =
      await eventually(within: .seconds(5)) {
        reads.allSatisfy { $0.started.isOpen } || scheduler.stalled() != nil
      } && reads.allSatisfy { $0.started.isOpen }
    let inside = reads.filter { $0.started.isOpen }.count
    for read in reads { read.letGo() }
    for read in reads { _ = try await read.outcome() }
    expect(
      queued && together,
      observed: queued
        ? "when the write ended, \(leftBehind) of 3 queued reads stayed in the queue; "
          + "\(inside) of 3 were inside at once"
        : "three reads sent while a write ran: \(queueing)",
      lesson: Self.lesson(
        seeing: queueing,
        else: Self.step.lesson(
          rule: "Reads run together, also when they waited: a release admits every read at the "
            + "front of the queue, up to the first write, in one go.",
          hint: "Admit in a loop: keep taking the front waiter while it may start, and stop only "
            + "after a write or at one that cannot start.", read: "fifo-fairness")))
  }
}
