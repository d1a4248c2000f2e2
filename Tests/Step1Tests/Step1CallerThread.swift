import Dispatch
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Whether the caller's thread stays free while the context works, for the async methods that
/// save and for the one that only reads. `performAndWait` in async code
/// records no violation and gets every value right: only the blocked thread shows it.
extension Step1Tests {
  static let callerThreadCheck = Self.step.check(
    "configure() and rename(to:) do not block the caller's thread", .failsOnStarter)

  static let callerThreadLesson = Self.step.lesson(
    rule: "In async code, await the context: the caller's task suspends, its thread is free, "
      + "and the block runs on the context's queue. `performAndWait` (or no perform at all) "
      + "runs the work on the thread of the task that calls it (the caller's, or a task started "
      + "for it), one of the few threads of the cooperative pool, and blocks it while the "
      + "context is busy.",
    hint: "In an async method, await the context's asynchronous `perform`: `performAndWait` is "
      + "for synchronous code.", read: "pitfalls")

  /// A save observer runs inside the save, on the thread that saves. With `await moc.perform`
  /// that is the context's queue, outside any Swift task: the caller's task is suspended and
  /// its thread free. `performAndWait` runs the block on the caller's own thread, inside its
  /// task, and blocks that thread of the cooperative pool until the block is done.
  @Test(
    "configure() and rename(to:) do not block the caller's thread",
    arguments: Subject.all)
  func callerThreadIsFree(_ subject: Subject) async {
    await exam(subject.side, Self.callerThreadCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step1-caller-thread")
      let log = SaveLog(container)
      defer { log.stop() }
      let controller = subject.make(container)
      log.during("configure()")
      try await controller.configure()
      log.during("rename(to:)")
      try await controller.rename(to: "free")
      let blocked = log.savesInATask.map { "the save of \($0.call) ran \($0.place)" }
      expect(
        blocked.isEmpty,
        observed: blocked.joined(separator: "; ") + ": on a thread of the cooperative pool, "
          + "which waited blocked until the block was done",
        lesson: Self.callerThreadLesson)
    }
  }

  static let readThreadCheck = Self.step.check(
    "name() leaves the caller's thread free while the context is busy", .passesOnStarter)

  /// A read saves nothing, so no save observer sees it: `name()` is called from a thread of its
  /// own while a block holds the context, and another job for that thread must get to run before
  /// the context is free again.
  @Test(
    "name() leaves the caller's thread free while the context is busy", arguments: Subject.all)
  func readLeavesTheThreadFree(_ subject: Subject) async {
    await exam(subject.side, Self.readThreadCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step1-read-thread")
      let controller = subject.make(container)
      try await controller.configure()
      let context = try Self.keptContext(of: controller, lesson: Self.callerThreadLesson)
      let free = try await Self.threadStaysFree(whileReading: controller, context: context)
      expect(
        free,
        observed: "name(), called while the context was busy, held its thread: no other job got "
          + "to run on it until the context was free",
        lesson: Self.step.lesson(
          rule: "A read is context work too: in async code it awaits the context like a save, "
            + "and leaves the caller's thread free while the context is busy. `performAndWait` "
            + "holds that thread, one of the few of the cooperative pool, until it is free.",
          hint: "In name() too, await the context's asynchronous `perform` and return the value "
            + "from the block.", read: "pitfalls"))
    }
  }

  /// Calls `name()` on a thread of its own while a block holds `context`, and reports whether
  /// another job got that thread meanwhile. A caller that awaits `perform` is suspended there;
  /// one in `performAndWait` holds the thread until the context is free.
  static func threadStaysFree(
    whileReading controller: any Controller, context: ManagedObjectContext
  ) async throws -> Bool {
    let busy = Gate()
    let release = Gate()
    occupy(context, opening: busy, until: release)
    defer { release.open() }
    guard await busy.opened() else { return true }
    let thread = SerialQueueTaskExecutor("step1-name-caller")
    let reading = Task(executorPreference: thread) { await controller.name() }
    // Each yield goes to the back of the thread's queue: behind every hop of the read (onto the
    // actor, into perform), so the probe finishes only if the read let go of the thread.
    let probe = Task(executorPreference: thread) {
      for _ in 0..<8 { await Task.yield() }
    }
    // A correct read lets the probe finish in microseconds. A read in `performAndWait` is seen
    // at once, from the context: nothing else uses it while it is held; one blocked some other
    // way (a semaphore) from the kernel, its thread parked inside the call. Only where the
    // kernel is not asked does it wait the bound out; 1 s was too short for the verify run on a
    // loaded 2-core machine (1 run in 20).
    let watch = ParkedJobWatch()
    let blocked: @Sendable () -> String? = {
      if context.threadsInPerformAndWait > 0 { return "name() waits in performAndWait" }
      return watch.blocked(thread)
        ? "name()'s thread is parked in the kernel, inside the call" : nil
    }
    let free = try await finishes(
      within: .seconds(5), "another job on name()'s thread", stalled: blocked
    ) { await probe.value }
    release.open()
    _ = try await withTimeout(defaultWaitTimeout, "name() once the context is free") {
      await reading.value
    }
    return free
  }

  /// Enqueues a block that holds `context` until `release` opens (bounded). Synchronous, so that
  /// `perform` is the fire-and-forget overload.
  static func occupy(_ context: ManagedObjectContext, opening busy: Gate, until release: Gate) {
    context.perform {
      busy.open()
      // Longer than any probe's bound: a blocked caller must still be blocked when it runs out.
      release.wait(timeout: defaultWaitTimeout)
    }
  }
}
