import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Who holds a slot, and who may call whom: the mistakes that pass the main checks by luck.
extension Step5Tests {
  static let cancelledHoldsNothingCheck = check(
    "a cancelled waiting write frees no slot it did not hold", .failsOnStarter)

  /// A caller cancelled while it waits never held the slot, so it must not release one: if it
  /// did, the next write would start beside the write that still runs.
  @Test("A cancelled waiting write frees no slot it did not hold", arguments: Subject.all)
  func cancelledWaiterHoldsNothing(_ subject: Subject) async {
    await exam(subject.side, Self.cancelledHoldsNothingCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      let running = Gate()
      let finish = Gate()
      async let holder: Void = scheduler.write { _ in
        running.open()
        _ = finish.wait(timeout: .seconds(15))
      }
      defer { finish.open() }
      _ = await running.opened()
      let waiter = Task { try await scheduler.write { _ in "ran" } }
      let queued = await eventually(within: .seconds(5)) { scheduler.waitingCount == 1 }
      waiter.cancel()
      _ = try await withTimeout(.seconds(10), "the cancelled caller") { await waiter.result }
      // The next write either queues (right) or starts at once beside the holder (wrong).
      let started = Gate()
      let intruder = Task { try await scheduler.write { _ in started.open() } }
      let settled = await eventually(within: .seconds(5)) {
        started.isOpen || scheduler.waitingCount == 1
      }
      let intruded = started.isOpen
      finish.open()
      try await holder
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
        lesson: Self.lesson(
          "Only a caller whose acquire returned holds a slot. A caller cancelled while waiting "
            + "holds nothing, so it releases nothing: else the next write runs beside one that "
            + "still holds the slot.",
          "Write `defer { release(…) }` after `try await acquire(…)`, never before it.",
          "the-foil"))
    }
  }

  static let otherSchedulerCheck = check(
    "a block of one scheduler may call another scheduler", .passesOnStarter)

  /// Re-entrance is refused per scheduler: a block waits for its own scheduler, never for another.
  @Test("A block of one scheduler may call another scheduler", arguments: Subject.all)
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
        lesson: Self.lesson(
          "Re-entrance is about one scheduler: a block that calls its own scheduler would wait "
            + "for itself, but another scheduler's slot is free.",
          "Compare the task-local with this scheduler's identity, not with nil.", "re-entrance"))
    }
  }
}
