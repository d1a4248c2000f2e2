import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// What happens to a controller while others work: a row deleted by another context, and a
/// `configure()` that runs while `delete()` waits for its block.
extension Step1Tests {
  static let deletedElsewhereCheck = Self.step.check(
    "rename(to:) of an entity deleted elsewhere throws its error", .passesOnStarter)

  static let deletedElsewhereLesson = Self.step.lesson(
    rule: "A lookup or a save that fails because the row is gone is an error for the caller: "
      + "`try?` turns it into a rename that silently did nothing.",
    hint: "Inside the block, write `try` on the lookup by ID and on the save, and let the "
      + "error leave the block and the method: no `try?`, no `guard … else { return }` around "
      + "the lookup.", read: "pitfalls-22")

  /// Another context deletes the controller's entity and saves; the controller's next rename
  /// must throw, whether its lookup by ID finds the row gone or its save does.
  @Test("rename(to:) of an entity deleted elsewhere throws its error", arguments: Subject.all)
  func renameDeletedElsewhereThrows(_ subject: Subject) async {
    await exam(subject.side, Self.deletedElsewhereCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.deletedElsewhere, subject)
    }
  }

  static func renameDeletedElsewhere(_ subject: Subject) async throws {
    let container = PersistentContainer(name: "step1-deleted-elsewhere")
    let controller = subject.make(container)
    try await controller.configure()
    try await subject.deleteEverywhere(in: container)
    let renamed = await Self.outcome { try await controller.rename(to: "too late") }
    expect(
      renamed.text != "returned normally",
      observed: "another context deleted the entity and saved; then rename(to:) returned "
        + "normally, as if it had renamed it", lesson: Self.deletedElsewhereLesson)
  }

  static let deleteDeletedElsewhereCheck = Self.step.check(
    "delete() of an entity deleted elsewhere never stops the program", .passesOnStarter)

  /// The stretch task's side of the same lesson (the untouched starter's delete() does nothing,
  /// which passes: the row is gone either way). The shapes may answer differently (the actor's
  /// lookup throws objectDeleted; the class deletes its stale object, which the store no longer
  /// has), but a `try!` on the lookup ends the process: this runs in a child process.
  @Test("delete() of an entity deleted elsewhere never stops the program", arguments: Subject.all)
  func deleteDeletedElsewhereThrows(_ subject: Subject) async {
    await exam(subject.side, Self.deleteDeletedElsewhereCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.deleteDeletedElsewhere, subject)
    }
  }

  static func deleteDeletedElsewhere(_ subject: Subject) async throws {
    let container = PersistentContainer(name: "step1-delete-deleted-elsewhere")
    let controller = subject.make(container)
    try await controller.configure()
    try await subject.deleteEverywhere(in: container)
    let deleted = await Self.outcome { try await controller.delete() }
    let left = try await subject.storedNames(in: container).count
    expect(
      left == 0,
      observed: "another context deleted the entity and saved; then delete() \(deleted.text), "
        + "and a fresh context counts \(left) entities", lesson: Self.deletedElsewhereLesson)
  }

  static let reentrantDeleteCheck = Self.step.check(
    "delete() waits without blocking its thread, and a configure() meanwhile keeps its entity",
    .stretch)

  static let reentrantDeleteLesson = Self.step.lesson(
    rule: "What a controller keeps is changed where it is guarded: the class's entity inside "
      + "the block, on the context's queue; the actor's ID on the actor, knowing that another "
      + "call may have run during the await.",
    hint: "In the class, forget the entity inside the block that deletes it. In the actor, "
      + "forget the ID after the await only if it is still the one you deleted.",
    read: "stretch-task")

  /// The controller is configured; `delete()` then runs on a thread the check holds once the
  /// deletion is saved (a save inside the caller's task means `performAndWait`, and a thread
  /// parked in the kernel inside its job while the block runs means a caller that waits
  /// blocked), so that the
  /// caller cannot go on. Meanwhile another `configure()` of the same controller runs whole. When `delete()` goes on, what it forgets must be the
  /// deleted entity, not the new one: `name()` still answers, and a second `delete()` empties
  /// the store.
  @Test(
    "delete() waits without blocking its thread, and a configure() meanwhile keeps its entity",
    arguments: Subject.all)
  func configureDuringDelete(_ subject: Subject) async {
    await exam(subject.side, Self.reentrantDeleteCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step1-reentrant-delete")
      let controller = subject.make(container)
      try await controller.configure()
      let thread = SerialQueueTaskExecutor("step1-delete-caller")
      let saved = Gate()
      // The task the save ran in, and the caller's: which one it was is the lesson's word.
      let savedIn = Mutex<Int?>(nil)
      let caller = Mutex<Int?>(nil)
      let done = Gate()
      let goOn = Gate()
      defer { goOn.open() }
      // What the caller's thread did while the block waited for it, when it did not suspend.
      let callerBlocked = Mutex<String?>(nil)
      let token = container.addSaveObserver { change in
        guard !change.deletedObjectIDs.isEmpty, !saved.isOpen else { return }
        let onCallersThread = withUnsafeCurrentTask { $0 != nil }
        savedIn.withLock { $0 = currentTask() }
        // Inside delete()'s block: hold its caller's thread before the block returns, and
        // (unless the block runs on that very thread) let the hold begin, so that the caller
        // has suspended: one resumed on its way there would go on ahead of the hold.
        let holding = thread.hold(until: goOn)
        // A caller that suspends frees its thread in microseconds. One that waits blocked for
        // this block (a semaphore) is parked in the kernel inside its job, seen at once; the
        // bound is for a platform whose kernel is not asked, well under the wait for `saved`.
        if !onCallersThread {
          let blocked = thread.holdBegins(holding, within: .seconds(5))
          callerBlocked.withLock { $0 = blocked }
        }
        saved.open()
      }
      let deleting = Task(executorPreference: thread) {
        caller.withLock { $0 = currentTask() }
        defer { done.open() }
        try await controller.delete()
      }
      _ = await eventually { saved.isOpen || done.isOpen }
      container.removeSaveObserver(token)
      try require(
        saved.isOpen,
        observed: "delete() returned without saving a deletion", lesson: Self.deleteLesson)
      let task = savedIn.withLock { $0 }
      expect(
        task == nil,
        observed: "the save of delete() ran inside "
          + (task == caller.withLock { $0 }
            ? "the caller's Swift task"
            : "a Swift task other than the caller's, one delete() started for it (a "
              + "`Task.detached` or a `Task { … }`)")
          + ", on a thread that waited blocked until the block was done",
        lesson: Self.callerThreadLesson)
      let blocked = callerBlocked.withLock { $0 }
      try require(
        blocked == nil,
        observed: "while the block of delete() ran, the thread of its caller was "
          + (blocked ?? "") + ": the caller waited blocked (on a semaphore, a lock, a group) "
          + "instead of suspending in `await`",
        lesson: Self.callerThreadLesson)
      try await withTimeout(defaultWaitTimeout, "configure() while delete() waits") {
        try await controller.configure()
      }
      goOn.open()
      try await withTimeout(defaultWaitTimeout, "delete()") { try await deleting.value }
      let kept = await controller.name()
      try await controller.delete()
      let stored = try await subject.storedNames(in: container)
      expect(
        kept != nil && stored.isEmpty,
        observed: "a configure() ran whole while delete() waited for its block; afterwards "
          + "name() answered \(kept.map { "\"\($0)\"" } ?? "nil"), and after one more delete() "
          + "a fresh context counts \(stored.count) entities: the new one was forgotten",
        lesson: Self.reentrantDeleteLesson)
    }
  }
}

extension ExamSubject where API == Step1API {
  /// Deletes every saved entity from a context of its own, as another part of an app would.
  func deleteEverywhere(in container: PersistentContainer) async throws {
    func delete<Entity: NamedEntity>(_ entity: Entity.Type) async throws {
      let other = container.newBackgroundContext()
      other.name = "elsewhere"
      try await other.perform {
        for object in try other.fetch(FetchRequest<Entity>()) { other.delete(object) }
        try other.save()
      }
    }
    try await delete(self.entity)
  }
}
