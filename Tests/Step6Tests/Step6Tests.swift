import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// Serialized: on the untouched starter, model actors run on the cooperative pool, and two
/// checks that each hold a pool thread while waiting for a partner would starve each other.
@Suite("Step 6 — model actors, one context per actor", .serialized)
struct Step6Tests {
  static let lesson = step.lesson(
    rule: "A model actor owns one context and runs every job on that context's queue, through an "
      + "executor of its own: its code may use the context directly, and two model actors run "
      + "side by side.",
    hint: "Look at what decides where an actor's jobs run: the ModelActor extension can decide it "
      + "for every model actor at once, with the executor each instance keeps.",
    read: "the-rule")

  static let step = ExamStep(
    "Step6", deck: "slides/06-model-actor.md",
    likelyCauseOfHang: "a blocking enqueue (performAndWait): model actors that call each other "
      + "deadlock; or an executor that never runs the jobs it is given",
    whenStuck: Lesson(
      rule: "Every job handed to a model actor's executor runs, on its context's queue, and "
        + "enqueue returns at once: a job that is dropped, or an enqueue that waits, leaves its "
        + "caller waiting forever.",
      hint: "Look at where the actor's jobs go: to the executor it keeps in modelExecutor, whose "
        + "enqueue hands each job to its own context and returns.",
      slide: "slides/06-model-actor.md#side-by-side"),
    watchdogTimeout: .seconds(60))

  static let queueCheck = step.check(
    "every job of a model actor runs on its own context's queue, with no violation",
    .failsOnStarter)

  @Test(
    "every job of a model actor runs on its own context's queue, with no violation",
    arguments: Subject.all)
  func jobsRunOnTheOwnQueue(_ subject: Subject) async {
    await exam(subject.side, Self.queueCheck) {
      let container = PersistentContainer(name: "step6-queue")
      let handler = subject.make(container)
      // Compared before any job runs: an executor made on each call is freed at once.
      let own = runsOnItsModelExecutor(handler)
      expect(
        own,
        observed: "the actor's unownedExecutor is not the executor in its modelExecutor: it "
          + "hands out another one (made on each call, or shared by every model actor)",
        lesson: Self.oneExecutorLesson)
      // A job on an executor made for the call ends the process: the check stops here.
      guard own || isDefaultActor(handler) else { return }
      let off = try await withTimeout(.seconds(20), "a model actor's jobs") {
        let off = await placesOffTheQueue(on: handler, visitor: Visitor())
        let id = try await handler.addNote("first")
        _ = try await handler.rename(id, to: "second")
        _ = await handler.text(of: id)
        try await handler.delete(id)
        return off
      }
      expect(
        off.isEmpty,
        observed: "the actor's code ran off its context's queue "
          + off.joined(separator: ", "), lesson: Self.lesson)
      expectNoViolations(
        container.violations,
        while: "a model actor added, renamed, read and deleted a note", lesson: Self.lesson)
    }
  }

  static let lookupCheck = step.check(
    "self[id, as:] finds the typed object, and nil for a deleted, foreign or other-entity ID",
    .failsOnStarter)

  @Test(
    "self[id, as:] finds the typed object, and nil for a deleted, foreign or other-entity ID",
    arguments: Subject.all)
  func typedLookup(_ subject: Subject) async {
    await exam(subject.side, Self.lookupCheck) {
      // A lookup that traps (`object(with:)` on a gone row, a `try!`, an `as!`) would end the
      // whole test run: the lookups run in a child process, which reports its answers, or the
      // last words of the call that stopped it.
      let result = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .success, observing: [\.standardErrorContent],
          "self[id, as:] must answer every lookup, never stop the program"
        ) { [side = subject.side as ExamSide] in
          await LookupAnswers.report(for: Subject.every.first(of: side))
        }
      }
      guard let result else {
        expect(
          false, observed: "the lookup scenario's child process ended without a report",
          lesson: Self.lookupLesson)
        return
      }
      if let death = ChildDeath(result) {
        expect(
          false,
          observed: "a lookup of a deleted, foreign or other-entity ID " + death.observed,
          lesson: Self.lookupLesson)
        return
      }
      let answers = try LookupAnswers(reportedIn: result.standardErrorContent)
      guard !answers.areRight else { return }
      // The answers come from the actor's context: on a wrong one, a right subscript answers
      // wrong too, and the lesson is the context's.
      let container = PersistentContainer(name: "step6-lookup-context")
      let faults = Self.contextFaults(
        of: [subject.make(container), subject.make(container)], in: container)
      expect(
        false,
        observed: faults.isEmpty
          ? answers.description
          : answers.description + "; but these answers come from the actor's context, which "
            + "is not its own background context: " + faults.joined(separator: "; "),
        lesson: faults.isEmpty ? Self.lookupLesson : Self.ownContextLesson)
    }
  }

  static let oneExecutorLesson = step.lesson(
    rule: "A model actor's jobs run on its own executor, the one it keeps in modelExecutor. An "
      + "executor made on each call is freed as soon as it is returned, and the runtime never "
      + "sees the same executor twice; a shared one is the global actor again.",
    hint: "Hand the runtime the executor stored in modelExecutor, the same object every time: "
      + "not one made for the call, not one shared by every model actor.",
    read: "one-executor-per-instance")

  static let lookupLesson = step.lesson(
    rule: "A lookup by ID is typed and total: the object as its entity, or nil. A missing "
      + "object is an ordinary answer, never a trap.",
    hint: "Ask this actor's own context for the object, typed as the entity asked for, and let "
      + "every failure of that lookup become nil.", read: "lookups-by-id")

  static let parallelCheck = step.check("two model actors run at the same time", .passesOnStarter)

  @Test("two model actors run at the same time", arguments: Subject.all)
  func modelActorsRunSideBySide(_ subject: Subject) async {
    await exam(subject.side, Self.parallelCheck) {
      let container = PersistentContainer(name: "step6-parallel")
      let first = subject.make(container)
      let second = subject.make(container)
      try Self.requireRunnableExecutors(first, second)
      let barrier = Barrier(parties: 2)
      // Each caller starts on a serial queue of its own: a default actor (the untouched starter)
      // runs its job there instead of on the cooperative pool, which other tests may hold. An
      // actor with an executor of its own runs its job on that executor, whatever the caller
      // prefers. Both jobs get a thread either way; whether they overlap is the executors' doing.
      let (met, metToo) = await sideBySide(
        on: (SerialQueueTaskExecutor("step6-first"), SerialQueueTaskExecutor("step6-second")),
        { await meet(on: first, barrier, partner: second) },
        { await meet(on: second, barrier, partner: first) })
      let shared = sharedQueue(first, second)
      expect(
        met && metToo,
        observed: "two model actors' jobs never ran at the same time"
          + (shared.map {
            ": \($0), and a job that runs there waits inside it: the other's job cannot start "
              + "until it ends"
          } ?? ""),
        lesson: Self.step.lesson(
          rule: "Each model actor has its own queue, so two of them run side by side; one "
            + "global actor runs one job at a time for everybody.",
          hint: "Look at what two instances share: the container may be shared, a context or an "
            + "executor may not.", read: "side-by-side"))
    }
  }

  static let deadlockCheck = step.check(
    "model actors calling each other at the same moment do not deadlock", .passesOnStarter)

  @Test(
    "model actors calling each other at the same moment do not deadlock",
    arguments: Subject.all)
  func noDeadlock(_ subject: Subject) async {
    await exam(subject.side, Self.deadlockCheck) {
      let container = PersistentContainer(name: "step6-deadlock")
      let first = subject.make(container)
      let second = subject.make(container)
      try Self.requireRunnableExecutors(first, second)
      let barrier = Barrier(parties: 2)
      // The callers start on Dispatch threads, not on the cooperative pool: a blocking enqueue
      // then blocks those, and the pool stays free to end the wait and report the deadlock.
      // The wait ends at once when the two contexts' queues wait for each other in
      // performAndWait, each holding the other's caller: a deadlock, certain from that state.
      let cycle = Mutex<[String]?>(nil)
      let finished = try await finishes(
        within: .seconds(15), "model actors calling each other",
        stalled: {
          guard let found = first.context.performAndWaitCycle else { return nil }
          cycle.withLock { $0 = found }
          return found.joined(separator: " → ")
        }
      ) {
        try await withTaskExecutorPreference(OffThePoolExecutor.shared) {
          async let one = callPartner(on: first, partner: second, meeting: barrier)
          async let two = callPartner(on: second, partner: first, meeting: barrier)
          _ = try await (one, two)
        }
      }
      let waited = cycle.withLock { $0 }
      expect(
        finished,
        observed: "two model actors whose jobs called each other "
          + (waited.map {
            "waited for each other for good: their contexts ("
              + $0.map { "'\($0)'" }.joined(separator: ", ")
              + ") each ran a job on its own queue that waited in performAndWait for the "
              + "other's queue, and a queue runs one block at a time"
          } ?? "did not finish within 15 s"),
        lesson: Self.step.lesson(
          rule: "enqueue must never block: model actors call each other, and the runtime calls "
            + "enqueue from another executor's job.",
          hint: "Look at ModelActorExecutor.enqueue: it hands the job to the context and returns, "
            + "without waiting for the job.", read: "side-by-side"))
    }
  }

  static let viewContextCheck = step.check(
    "a model actor's save reaches the view context", .failsOnStarter)

  @Test("a model actor's save reaches the view context", arguments: Subject.all)
  func savesReachTheViewContext(_ subject: Subject) async {
    await exam(subject.side, Self.viewContextCheck) {
      let container = PersistentContainer(name: "step6-view")
      // The view context keeps what it shows, as a screen's list keeps its rows: else the
      // second read would fetch the row afresh from the store and not need the merge (Core
      // Data, like the core, holds an unchanged object only while someone does).
      container.viewContext.retainsRegisteredObjects = true
      let handler = subject.make(container)
      try Self.requireRunnableExecutors(handler)
      let id = try await handler.addNote("v1")
      let before = await subject.mainText(container, id)
      _ = try await handler.rename(id, to: "v2")
      // The merge was enqueued on the main queue during the save; this main-actor job runs after.
      let after = await subject.mainText(container, id)
      expect(
        before == "v1" && after == "v2",
        observed: "the view context read \(String(describing: before)), then "
          + "\(String(describing: after))",
        lesson: Self.step.lesson(
          rule: "Model actors save to the store; the view context learns of it through save "
            + "notifications, merged on the main queue.",
          hint: "Check the steps in order: the model actor must find the note by its ID "
            + "(`self[id, as:]` must not answer nil), save, and the view context must merge "
            + "(`automaticallyMergesChangesFromParent`, which MainDataHandler sets).",
          read: "lookups-by-id"))
    }
  }
}

/// The compile-time half: objects stay in their actor, IDs travel.
@Suite("Step 6 — what the compiler checks")
struct Step6ProbeTests {
  static func probe(_ name: String, _ subject: Subject) async {
    await examProbe(
      name, in: "Tests/Step6Tests/Probes", against: subject.module, side: subject.side,
      step: Step6Tests.step,
      lesson: Step6Tests.step.lesson(
        rule: "A managed object is bound to its model actor's context and is not Sendable; its "
          + "ManagedObjectID is, and the other actor looks it up in its own context.",
        hint: "Pass IDs between model actors; look objects up with `self[id, as:]`.",
        read: "the-rule"))
  }

  @Test(
    "probe NoteStaysInside: a note cannot be handed from one model actor to another",
    arguments: Subject.all)
  func noteStaysInside(_ subject: Subject) async {
    await Self.probe("NoteStaysInside", subject)
  }

  @Test(
    "probe IDTravels: a note's objectID travels to another model actor", arguments: Subject.all)
  func idTravels(_ subject: Subject) async {
    await Self.probe("IDTravels", subject)
  }
}
