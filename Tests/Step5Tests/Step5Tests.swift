import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

@Suite("Step 5 — the read/write scheduler")
struct Step5Tests {
  static let step = ExamStep(
    "Step5", deck: "slides/05-read-write-scheduler.md",
    likelyCauseOfHang: "a caller that waits for a slot nobody releases (a block that threw, a "
      + "cancelled caller), or a block that waits for the scheduler it runs in",
    whenStuck: Lesson(
      rule: "Every caller that got a slot gives it back, on every path (success, error, "
        + "cancellation), and every waiter is resumed exactly once: else the next caller waits "
        + "forever.",
      hint: "Release in a `defer` right after `acquire` returned; on cancel, resume the waiter you "
        + "removed from the queue, and only that one.",
      slide: "slides/05-read-write-scheduler.md#the-foil"))

  /// A container with a score "ann" at 0, and a scheduler of `subject`'s side on it.
  static func setUp(_ subject: Subject) async throws -> (PersistentContainer, any Scheduler) {
    let container = PersistentContainer(name: "step5")
    let scheduler = subject.make(container)
    try await container.performBackgroundTask { context in
      Score(context: context).name = "ann"
      try context.save()
    }
    return (container, scheduler)
  }

  static let incrementsCheck = step.check(
    "100 concurrent increments through executeWrite add up to exactly +1000", .failsOnStarter)

  @Test(
    "100 concurrent increments through executeWrite add up to exactly +1000",
    arguments: Subject.all)
  func noLostUpdate(_ subject: Subject) async {
    await exam(subject.side, Self.incrementsCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      // The first two meet between their read and their write, if they can run at once.
      let barrier = Barrier(parties: 2)
      try await concurrently(100, "increments") { index in
        try await scheduler.write(addTen(to: "ann", meeting: index < 2 ? barrier : nil))
      }
      let total = try await scheduler.read { try score(named: "ann", in: $0).value }
      expect(
        total == 1_000, observed: "100 increments of 10 left the score at \(total)",
        lesson: Self.step.lesson(
          rule: "A read-modify-write must run alone: two that overlap both read the old value, and "
            + "the later save overwrites the earlier (a lost update).",
          hint: "Let executeWrite wait until no other block runs, and release its slot afterwards.",
          read: "the-lost-update"))
    }
  }

  static let readsOverlapCheck = step.check(
    "reads run side by side: four reads are inside at once", .passesOnStarter)

  @Test("reads run side by side: four reads are inside at once", arguments: Subject.all)
  func readsOverlap(_ subject: Subject) async {
    await exam(subject.side, Self.readsOverlapCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      let barrier = Barrier(parties: 4)
      let met = Log()
      try await concurrently(4, "reads") { _ in
        try await scheduler.read { _ in
          if barrier.arriveAndWait(timeout: .seconds(10)) { met.append("met") }
        }
      }
      let together = met.all.count
      expect(
        together == 4,
        observed: "only \(together) of 4 reads were inside at the same time",
        lesson: Self.step.lesson(
          rule:
            "Reads do not change anything, so any number may run at once: that is the point of a "
            + "readers-writer scheduler over one serial actor.",
          hint:
            "Admit a read whenever no write runs and no write waits ahead of it, even while other "
            + "reads run.", read: "many-readers-or-one-writer"))
    }
  }

  static let exclusiveCheck = step.check(
    "a write never runs alongside a read or another write", .failsOnStarter)

  @Test("a write never runs alongside a read or another write", arguments: Subject.all)
  func writesRunAlone(_ subject: Subject) async {
    await exam(subject.side, Self.exclusiveCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      let lesson = Self.step.lesson(
        rule: "A write runs alone: while it runs, no read and no other write may start.",
        hint: "Admit a write only when no block runs; admit nothing new while a write runs.",
        read: "many-readers-or-one-writer")
      // A block runs; a write, or a read sent while a write runs, meets it only if they overlap.
      for (running, second) in [("write", "read"), ("write", "write"), ("read", "write")] {
        let started = Gate()
        let barrier = Barrier(parties: 2)
        let met = Log()
        let firstBlock: @Sendable (ManagedObjectContext) throws -> Void = { _ in
          started.open()
          if barrier.arriveAndWait(timeout: .seconds(1)) {
            met.append("the first \(running)")
          }
        }
        async let first: Void =
          running == "write" ? scheduler.write(firstBlock) : scheduler.read(firstBlock)
        _ = await started.opened()
        if second == "read" {
          try await scheduler.read { _ in _ = barrier.arriveAndWait(timeout: .seconds(1)) }
        } else {
          try await scheduler.write { _ in _ = barrier.arriveAndWait(timeout: .seconds(1)) }
        }
        try await first
        expect(
          met.all.isEmpty,
          observed: "a \(second) sent while a \(running) ran met it inside the scheduler",
          lesson: lesson)
      }
      // And under a mixed load, nobody ever keeps a write company.
      let occupancy = Occupancy()
      try await concurrently(60, "mixed reads and writes") { index in
        let isWrite = index % 3 == 0
        let block: @Sendable (ManagedObjectContext) throws -> Void = { context in
          occupancy.enter(isWrite)
          defer { occupancy.leave(isWrite) }
          _ = try score(named: "ann", in: context).value
        }
        if isWrite { try await scheduler.write(block) } else { try await scheduler.read(block) }
      }
      let overlaps = occupancy.overlaps
      expect(
        overlaps.isEmpty,
        observed: "under 60 mixed calls: \(overlaps.prefix(5).joined(separator: "; "))",
        lesson: lesson)
    }
  }

  static let fairnessCheck = step.check(
    "with a read running and a write waiting, a new read waits for the write", .failsOnStarter)

  @Test(
    "with a read running and a write waiting, a new read waits for the write",
    arguments: Subject.all)
  func writersDoNotStarve(_ subject: Subject) async {
    await exam(subject.side, Self.fairnessCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      let lesson = Self.step.lesson(
        rule:
          "First come, first served: a read that arrives while a write waits queues behind it, or "
          + "a stream of reads could keep the write out forever.",
        hint: "Keep one queue in arrival order; admit from its front only; stop at a write that "
          + "cannot start yet.", read: "fifo-fairness")
      let running = Gate()
      let finish = Gate()
      let order = Log()
      async let firstRead: Void = scheduler.read { _ in
        running.open()
        _ = finish.wait(timeout: .seconds(15))
      }
      _ = await running.opened()
      async let write: Void = scheduler.write { _ in order.append("write") }
      let writeWaits = await eventually(within: .seconds(5)) { scheduler.waitingCount == 1 }
      async let secondRead: Void = scheduler.read { _ in order.append("read") }
      let readWaits = await eventually(within: .seconds(5)) { scheduler.waitingCount == 2 }
      finish.open()
      try await firstRead
      try await write
      try await secondRead
      let observed = order.all
      expect(
        writeWaits && readWaits && observed == ["write", "read"],
        observed: "the write \(writeWaits ? "waited" : "never waited"), the new read "
          + "\(readWaits ? "waited" : "never waited"); they ran in the order \(observed)",
        lesson: lesson)
    }
  }

  static let throwingCheck = step.check("a block that throws releases its slot", .passesOnStarter)

  @Test("a block that throws releases its slot", arguments: Subject.all)
  func throwingReleases(_ subject: Subject) async {
    struct Refused: Error {}
    await exam(subject.side, Self.throwingCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      // Bounded as a whole: a slot that is never released makes the next caller wait forever.
      let (refusals, after) = try await withTimeout(.seconds(20), "blocks that throw, then a write")
      {
        var refusals = 0
        for _ in 0..<2 {
          do { try await scheduler.write { _ in throw Refused() } } catch is Refused {
            refusals += 1
          }
          do { try await scheduler.read { _ in throw Refused() } } catch is Refused {
            refusals += 1
          }
        }
        return (refusals, try await scheduler.write { _ in "done" })
      }
      expect(
        refusals == 4, observed: "\(refusals) of 4 throwing blocks rethrew their error",
        lesson: Self.step.lesson(
          rule: "A block's error reaches its caller.", hint: "Let the block's error propagate.",
          read: "the-foil"))
      expect(
        after == "done", observed: "a write after blocks that threw returned \(after)",
        lesson: Self.step.lesson(
          rule: "Every exit releases the slot, the error path too.",
          hint: "Release in a `defer` right after acquiring.", read: "the-foil"))
    }
  }

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

  /// Runs in a child process: a wrong answer may resume a waiter twice, which ends the process.
  static func cancelledWhileWaiting(_ subject: Subject) async throws {
    let (_, scheduler) = try await Self.setUp(subject)
    let holder = await SlotHolder.take(scheduler)
    defer { holder.letGo() }
    let (queued, outcomes) = try await holder.cancelWaitingWrites(1, on: scheduler)
    let outcome = outcomes[0]
    let left = scheduler.waitingCount
    try await holder.release()
    let next = try await withTimeout(.seconds(20), "a write after the cancelled one") {
      try await scheduler.write { _ in "next" }
    }
    let wasCancelled: Bool
    if case .failure(let error) = outcome {
      wasCancelled = error is CancellationError
    } else {
      wasCancelled = false
    }
    expect(
      queued && wasCancelled && left == 0 && next == "next",
      observed: "the caller \(queued ? "waited" : "never waited"), then got \(outcome) "
        + "while the slot was taken; \(left) caller(s) still queued",
      lesson: Self.step.lesson(
        rule: "A caller that is cancelled while it waits stops waiting at once, with "
          + "CancellationError, and leaves the queue.",
        hint:
          "Wait inside `withTaskCancellationHandler`; on cancel, remove the waiter and resume it "
          + "throwing CancellationError.", read: "the-foil"))
  }

  static let readOnlyCheck = step.check(
    "a read that tries to save is refused with a clear error", .failsOnStarter)

  @Test("a read that tries to save is refused with a clear error", arguments: Subject.all)
  func readsCannotSave(_ subject: Subject) async {
    await exam(subject.side, Self.readOnlyCheck) {
      let (container, scheduler) = try await Self.setUp(subject)
      var refusal: (any Error)?
      do {
        try await scheduler.read { context in
          try score(named: "ann", in: context).value = 99
          try context.save()
        }
      } catch {
        refusal = error
      }
      let stored = try await container.performBackgroundTask {
        try score(named: "ann", in: $0).value
      }
      let refused: Bool
      if case .readOnlyContext? = refusal as? PersistenceError {
        refused = true
      } else {
        refused = false
      }
      expect(
        refused && stored == 0,
        observed: "the read's save \(refusal.map { "threw \($0)" } ?? "went through"); the "
          + "store holds \(stored)",
        lesson: Self.step.lesson(
          rule: "Reads run side by side because they change nothing; a read that writes would be a "
            + "write without the write's protection.",
          hint: "Give reads a read-only context: `context.isReadOnly = true`.",
          read: "reads-cannot-write"))
    }
  }

  static let reentryCheck = step.check(
    "calling the scheduler from inside its own block is an error, not a deadlock",
    .failsOnStarter)

  @Test(
    "calling the scheduler from inside its own block is an error, not a deadlock",
    arguments: Subject.all)
  func reentryIsAnError(_ subject: Subject) async {
    await exam(subject.side, Self.reentryCheck) {
      let (_, scheduler) = try await Self.setUp(subject)
      let answer = try await scheduler.write { _ -> String in
        // A block cannot await; a task it starts can, and would wait for this very write.
        let done = Gate()
        let result = Log()
        Task {
          do {
            result.append("returned \(try await scheduler.read { _ in 1 })")
          } catch {
            result.append(subject.isReentrantCall(error) ? "refused" : "threw \(error)")
          }
          done.open()
        }
        return done.wait(timeout: .seconds(15))
          ? result.all.joined() : "waited for the write it runs in: a deadlock"
      }
      expect(
        answer == "refused", observed: "the inner call \(answer)",
        lesson: Self.step.lesson(
          rule:
            "A block that calls back into its own scheduler waits for itself. The scheduler must "
            + "say so instead of hanging.",
          hint:
            "Mark the running block with a @TaskLocal (tasks started inside inherit it) and throw "
            + "SchedulerError.reentrantCall when it is set.", read: "re-entrance"))
    }
  }
}

/// The compile-time half: a managed object cannot leave a block.
@Suite("Step 5 — what the compiler checks")
struct Step5ProbeTests {
  @Test(
    "probe ManagedObjectStaysInside: a managed object cannot leave a block", arguments: Subject.all)
  func managedObjectStaysInside(_ subject: Subject) async {
    await examProbe(
      "ManagedObjectStaysInside", in: "Tests/Step5Tests/Probes", against: subject.module,
      side: subject.side, step: Step5Tests.step,
      lesson: Step5Tests.step.lesson(
        rule: "A block's result crosses from the context's queue to the caller: only Sendable "
          + "values may, never a managed object.",
        hint: "Keep `Result: Sendable` on executeRead and executeWrite; return values or IDs.",
        read: "sendable-results"))
  }
}
