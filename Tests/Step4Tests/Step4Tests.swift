import Foundation
import ManagedObjectCore
import Step4
import Step4Solution
import Testing
import WorkshopSupport

/// Each side has one global actor and one container for the whole process, so these checks run
/// one at a time, and each starts by forgetting earlier violations.
@Suite("Step 4 — run the actor on the context's queue", .serialized)
struct Step4Tests {
  static let lesson = step.lesson(
    rule: "An actor runs its jobs where its executor puts them. A SerialExecutor whose enqueue "
      + "hands each job to the context's perform runs every job of the actor on the context's "
      + "queue, so code on the actor may use the context directly.",
    hint: "Two places decide where a job of CoreDataActor runs: the executor the actor names, "
      + "and where that executor's enqueue sends the job. Both must lead to the context's perform.",
    read: "the-rule")

  /// What an executor that drops its jobs teaches: the caller waits forever, so the checks stop
  /// waiting after a few seconds and say why.
  static let jobsNeverRanLesson = Lesson(
    rule: "enqueue receives every job of the actor, and each must run exactly once, on the "
      + "executor's queue. A job that enqueue drops never runs, and whoever awaits the actor "
      + "waits forever.",
    hint: "Look at what enqueue does with its job: hand it to the context's perform, and run it "
      + "inside the block, on this executor.",
    slide: "slides/04-custom-executor.md#the-rule", hints: 4)

  static let step = ExamStep(
    "Step4", deck: "slides/04-custom-executor.md",
    likelyCauseOfHang: "an executor that never runs a job, or blocks in enqueue",
    whenStuck: jobsNeverRanLesson)

  /// Fails the check when jobs of CoreDataActor do not run: the checks that hop onto the actor
  /// would otherwise wait for them forever. With the step's executor installed, the context's
  /// queue says so at once; with another executor, a first job gets 5 s.
  static func requireJobsRun(_ subject: Subject) async throws {
    if subject.executorInstalled { try await requireHandOff(subject.shared) }
    let ran = try? await withTimeout(.seconds(5), "a first job of CoreDataActor") {
      await isOnQueue(on: subject.actor) { true }
    }
    try require(
      ran == true,
      observed: "a job of CoreDataActor did not run within 5 s: enqueue did not hand it on, or "
        + "the block it handed on did not run it",
      lesson: jobsNeverRanLesson)
  }

  static let crudCheck = step.check(
    "create, read, update and delete, on the actor and from another actor, record no violation",
    .failsOnStarter)

  @Test(
    "create, read, update and delete, on the actor and from another actor, record no violation",
    arguments: Subject.all)
  func crudRecordsNoViolation(_ subject: Subject) async {
    await exam(subject.side, Self.crudCheck) {
      await Self.inChildProcess(.crud, subject)
    }
  }

  static func crud(_ subject: Subject) async throws {
    try await Self.requireJobsRun(subject)
    subject.container().removeAllViolations()
    let name = "crud \(subject.side)"
    let life = try await withTimeout(.seconds(10), "the controller's life, from a visitor") {
      try await Visitor().useController(subject.makeController(), name: name)
    }
    expectNoViolations(
      subject.container().removeAllViolations(),
      while: "another actor configured, renamed, read and deleted an entity through the "
        + "controller, whose methods use the context synchronously on CoreDataActor",
      lesson: Self.lesson)
    let stored = try await subject.storedNames().filter { $0.hasPrefix(name) }
    expect(
      life.renamed == name + " renamed" && life.afterDelete == nil && stored.isEmpty,
      observed: "name() read \(String(describing: life.renamed)) after the rename and "
        + "\(String(describing: life.afterDelete)) after delete(); left in the store: \(stored)",
      lesson: Self.lesson)
  }

  static let queueCheck = step.check(
    "every job of the actor runs on the context's queue", .failsOnStarter)

  @Test(
    "every job of the actor runs on the context's queue",
    arguments: Subject.all)
  func everyJobOnTheQueue(_ subject: Subject) async {
    await exam(subject.side, Self.queueCheck) {
      await Self.inChildProcess(.queue, subject)
    }
  }

  static func queue(_ subject: Subject) async throws {
    try await Self.requireJobsRun(subject)
    let off = try await withTimeout(.seconds(10), "a job that hops off the actor and back") {
      await placesOffTheQueue(
        on: subject.actor, isOnContextQueue: subject.isOnContextQueue, visitor: Visitor())
    }
    expect(
      off.isEmpty,
      observed: "code on CoreDataActor ran off the context's queue "
        + off.joined(separator: ", "),
      lesson: Self.lesson)
  }

  static let serialCheck = step.check(
    "jobs run one at a time, and 1,000 concurrent increments through the actor are exact",
    .passesOnStarter)

  @Test(
    "jobs run one at a time, and 1,000 concurrent increments through the actor are exact",
    arguments: Subject.all)
  func jobsRunOneAtATime(_ subject: Subject) async {
    await exam(subject.side, Self.serialCheck) {
      await Self.inChildProcess(.serial, subject)
    }
  }

  static let serialLesson = step.lesson(
    rule: "A SerialExecutor runs one job at a time, each to its end before the next begins: "
      + "that is what makes an actor an actor. A context's queue is serial, a global "
      + "dispatch queue is not, and a job that enqueue runs at once runs inside the job "
      + "that enqueued it.",
    hint: "Which queue does enqueue hand the job to? A concurrent one runs two jobs at once. "
      + "And enqueue only queues the job, even when called on the context's queue.",
    read: "serial-means-serial")

  static func serial(_ subject: Subject) async throws {
    let lesson = serialLesson
    try await Self.requireJobsRun(subject)
    let nested = try await withTimeout(.seconds(10), "a task started in a job of the actor") {
      await taskRunsInsideTheJob(on: subject.actor)
    }
    expect(
      !nested,
      observed: "a job of CoreDataActor started a task on CoreDataActor, and the task's first "
        + "job ran before that job had ended, nested in it: enqueue ran the job at once",
      lesson: lesson)
    // Two jobs wait for each other only where they could overlap: off the context's queue,
    // on the step's executor. The default executor runs one job at a time by itself.
    let actor = subject.actor
    let installed = subject.executorInstalled
    let container = subject.shared.container
    let overlapped = try await withTimeout(.seconds(10), "two jobs meeting at a barrier") {
      await jobsOverlap(on: actor) { !installed || container.isOnContextQueue }
    }
    expect(
      !overlapped,
      observed: "two jobs of CoreDataActor ran at the same time (they met at a barrier)",
      lesson: lesson)
    let total = try await increments(1_000, on: subject.actor)
    expect(
      total == 1_000, observed: "1,000 concurrent increments on the actor left \(total)",
      lesson: lesson)
  }

  // A blocking enqueue blocks threads of the cooperative pool, and then nothing is left to run
  // the 15 s timeout's continuation. So the scenario runs in a child process (as every scenario
  // that runs jobs does), where a watchdog ends a deadlock, and this process reports the lesson.
  // Before it, a probe shows an enqueue that waits for a busy queue in 2 s, without a deadlock.
  static let deadlockCheck = Self.step.check(
    "two actors on two contexts calling each other do not deadlock", .failsOnStarter,
    likelyCauseOfHang: "a blocking enqueue (performAndWait): two actors that call each other "
      + "deadlock. enqueue must hand the job to the context's perform and return at once.")

  static let deadlockLesson = step.lesson(
    rule: "enqueue must never block: the runtime calls it from any thread, even from a job "
      + "of another executor that is itself waiting.",
    hint: "Does enqueue return before the job has run? It must only hand the job over.",
    read: "never-block-in-enqueue")

  @Test("two actors on two contexts calling each other do not deadlock", arguments: Subject.all)
  func actorsCallingEachOtherDoNotDeadlock(_ subject: Subject) async {
    await exam(subject.side, Self.deadlockCheck) {
      await Self.inChildProcess(.deadlock, subject)
    }
  }

  /// Two actors, each on an executor of its own, call each other at the same moment.
  static func callEachOther(_ subject: Subject) async throws {
    // Both shown from the context's own queue, in milliseconds: an enqueue that drops its jobs
    // fails here with its own lesson, and one that waits for the queue without the deadlock.
    try await requireHandOff(subject.spare)
    let waits = try await HandOffProbe.enqueueWaitsForTheQueue(subject.spare)
    try require(
      !waits,
      observed: "enqueue, called while the context's queue ran another block, returned only once "
        + "that block had ended (it gave up waiting for enqueue after 2 s): enqueue waits for "
        + "the queue, and two actors whose jobs call each other would wait for each other",
      lesson: Self.deadlockLesson)
    let first = Peer(subject.makeExecutor("first \(subject.side)"))
    let second = Peer(subject.makeExecutor("second \(subject.side)"))
    await first.pair(with: second)
    await second.pair(with: first)
    let meeting = Meeting()
    let finished = try await finishes(within: .seconds(15), "two actors calling each other") {
      // `Task.immediate` runs up to the hop onto the peer, so its executor's `enqueue` has run
      // when it returns: the meeting then knows both jobs were handed over.
      let one = Task.immediate { await first.callPartner(meeting: meeting) }
      let two = Task.immediate { await second.callPartner(meeting: meeting) }
      meeting.handedOver()
      _ = await (one.value, two.value)
    }
    expect(
      finished,
      observed: "two actors whose jobs called each other at the same moment did not finish "
        + "within 15 s: a deadlock",
      lesson: Self.deadlockLesson)
  }

  static let controllerCheck = step.check(
    "the controller keeps its managed object safely, under concurrent renames", .failsOnStarter)

  @Test(
    "the controller keeps its managed object safely, under concurrent renames",
    arguments: Subject.all)
  func controllerKeepsItsObject(_ subject: Subject) async {
    await exam(subject.side, Self.controllerCheck) {
      await Self.inChildProcess(.controller, subject)
    }
  }

  static func controller(_ subject: Subject) async throws {
    try await Self.requireJobsRun(subject)
    subject.container().removeAllViolations()
    let controller = subject.makeController()
    let prefix = "kept \(subject.side)"
    let names = (0..<50).map { "\(prefix) \($0)" }
    let (kept, stored) = try await withTimeout(.seconds(30), "the controller's renames") {
      try await controller.configure(name: prefix)
      try await concurrently(names.count, "rename(to:) calls") { index in
        try await controller.rename(to: names[index])
      }
      let kept = await controller.name()
      let stored = try await subject.storedNames().filter { $0.hasPrefix(prefix) }
      try await controller.delete()
      return (kept, stored)
    }
    expectNoViolations(
      subject.container().removeAllViolations(),
      while: "50 tasks renamed the entity the controller keeps as a property",
      lesson: Self.lesson)
    expect(
      kept.map { names.contains($0) } == true && stored == [kept ?? ""],
      observed: "the controller holds \(String(describing: kept)), the store \(stored)",
      lesson: Self.lesson)
  }
}
