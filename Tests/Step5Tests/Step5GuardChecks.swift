import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// What each block is given and may do: a fresh context, read-only for reads, and no call back
/// into its own scheduler.
extension Step5Tests {
  static let readOnlyCheck = step.check(
    "a read that tries to save is refused with a clear error", .passesOnStarter)

  @Test("a read that tries to save is refused with a clear error", arguments: Subject.all)
  func readsCannotSave(_ subject: Subject) async {
    await exam(subject.side, Self.readOnlyCheck) {
      try await Self.inChildProcess(.readOnly, subject)
    }
  }

  static func readThatSaves(_ subject: Subject) async throws {
    let (container, scheduler) = try await Self.setUp(subject)
    // The read is asked off the cooperative pool while every thread of the pool is held until
    // its block has saved: a context made read-only by a task the scheduler starts (rather than
    // before the block runs) is still writable when the block saves, every time.
    let refusal = await withTaskExecutorPreference(OffThePoolExecutor.shared) {
      let (letGo, held) = (Gate(), Log())
      let width = ProcessInfo.processInfo.activeProcessorCount
      let holders = (0..<width).map { _ in
        Task.detached {
          held.append("held")
          _ = letGo.wait(timeout: .seconds(2))
        }
      }
      _ = await eventually(within: .seconds(2)) { held.all.count == width }
      // Not through `read`: its task would start on the pool, which is held. The read's own
      // task prefers this executor; the bound only waits for its outcome, and ends on a stalled
      // scheduler (a read that can never start) once the pool is let go.
      let read = Task(executorPreference: OffThePoolExecutor.shared) {
        try await scheduler.executeRead { context in
          defer { letGo.open() }
          try score(named: "ann", in: context).value = 99
          try context.save()
        }
      }
      var refusal: (any Error)?
      do {
        try await withTimeout(.seconds(10), "a read that saves", stalled: scheduler.stalled) {
          try await read.value
        }
      } catch {
        refusal = error
        if error is TimeoutError { read.cancel() }
      }
      letGo.open()
      for holder in holders { await holder.value }
      return refusal
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
    // A clear error says which context refused: the read's, named "read".
    let named = refusal.map { "\($0)".contains("'read'") } ?? false
    if let unfinished = refusal as? TimeoutError {
      expect(
        false, observed: "with nothing else running, a read never ran its block: \(unfinished)",
        lesson: Self.step.lesson(
          rule: "A read may start while no write runs and none waits ahead of it.",
          hint: "Look at `canStart(_:)` for a read, and at the start-or-wait decision.",
          read: "the-rule"))
      return
    }
    expect(
      refused && named && stored == 0,
      observed: "the read's save \(refusal.map { "threw \"\($0)\"" } ?? "went through"); the "
        + "store holds \(stored)",
      lesson: Self.step.lesson(
        rule: "Reads run side by side because they change nothing; a read that writes would be a "
          + "write without the write's protection.",
        hint: "Give reads a read-only context named \"read\", so that its refusal says whose it "
          + "is: `context.isReadOnly = true`.",
        read: "reads-cannot-write"))
  }

  static let freshContextCheck = step.check(
    "a write that throws leaves none of its changes to the next write", .passesOnStarter)

  /// A context keeps what a block changed and did not save. One context kept for every write
  /// hands a failed block's changes to the next write, whose save stores them.
  @Test("a write that throws leaves none of its changes to the next write", arguments: Subject.all)
  func failedWriteLeavesNothing(_ subject: Subject) async {
    await exam(subject.side, Self.freshContextCheck) {
      try await Self.inChildProcess(.failedWrite, subject)
    }
  }

  static func writeAfterFailedWrite(_ subject: Subject) async throws {
    struct Refused: Error {}
    let (container, scheduler) = try await Self.setUp(subject)
    do {
      try await scheduler.write { context in
        try score(named: "ann", in: context).value = 99
        throw Refused()
      }
    } catch is Refused {}
    let inherited = try await scheduler.write { context -> Bool in
      let inherited = context.hasChanges
      Score(context: context).name = "bob"
      try context.save()
      return inherited
    }
    let stored = try await container.performBackgroundTask {
      try score(named: "ann", in: $0).value
    }
    expect(
      !inherited && stored == 0,
      observed: "a write set ann's score to 99 and threw; the next write's context "
        + (inherited ? "already had unsaved changes" : "had no changes")
        + ", and after its save the store holds \(stored) for ann",
      lesson: Self.step.lesson(
        rule: "Each block gets a fresh context: a context keeps what a block changed and did not "
          + "save, so a context kept for the next write hands it a failed write's changes, and "
          + "its save stores them.",
        hint: "Make the context inside `execute`, for each block, with "
          + "`container.newBackgroundContext()`; keep none in a property.",
        read: "a-fresh-context-for-every-block"))
  }

  static let reentryCheck = step.check(
    "calling the scheduler from inside its own block is an error, not a deadlock",
    .passesOnStarter)

  @Test(
    "calling the scheduler from inside its own block is an error, not a deadlock",
    arguments: Subject.all)
  func reentryIsAnError(_ subject: Subject) async {
    await exam(subject.side, Self.reentryCheck) {
      try await Self.inChildProcess(.reentry, subject)
    }
  }

  static func callBackIn(_ subject: Subject) async throws {
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
      // The inner call either ends, or is seen queued behind the write it runs in.
      return waitBlocking(for: done, orUntil: { scheduler.waitingCount > 0 })
        ? result.all.joined() : "queued behind the write it runs in: a deadlock"
    }
    expect(
      answer == "refused", observed: "the inner call \(answer)",
      lesson: Self.step.lesson(
        rule:
          "A block that calls back into its own scheduler waits for itself. The scheduler must "
          + "say so instead of hanging.",
        hint:
          "Mark the running block with a @TaskLocal bound inside the block that perform runs (the "
          + "block runs on the context's queue, where a value bound around the call to perform "
          + "does not reach; tasks started inside inherit it), and throw "
          + "SchedulerError.reentrantCall when it is set.", read: "re-entrance"))
  }

  static let otherSchedulerCheck = step.check(
    "a block of one scheduler may call another scheduler", .passesOnStarter)

  /// Re-entrance is refused per scheduler: a block waits for its own scheduler, never for another.
  @Test("a block of one scheduler may call another scheduler", arguments: Subject.all)
  func blockMayCallAnotherScheduler(_ subject: Subject) async {
    await exam(subject.side, Self.otherSchedulerCheck) {
      try await Self.inChildProcess(.otherScheduler, subject)
    }
  }

  static func callAnotherScheduler(_ subject: Subject) async throws {
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
      return waitBlocking(for: done, orUntil: { inner.waitingCount > 0 })
        ? result.all.joined() : "queued on the second scheduler, whose slot was free"
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

/// Blocks the calling thread (a block's, on a context's queue: never the cooperative pool's)
/// until `gate` opens, true, or until `condition` holds or 15 s pass, false. A bounded wait's
/// poll, a millisecond apart: it provokes nothing.
func waitBlocking(for gate: Gate, orUntil condition: () -> Bool) -> Bool {
  let deadline = ContinuousClock.now + .seconds(15) * timeScale
  while ContinuousClock.now < deadline {
    if gate.wait(timeout: .milliseconds(1)) { return true }
    if condition() { return gate.isOpen }
  }
  return gate.isOpen
}
