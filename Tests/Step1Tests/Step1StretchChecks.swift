import ManagedObjectCore
import Testing
import WorkshopSupport

/// The stretch task: `delete()`, a further operation under the same rule, in both shapes. The
/// untouched starter leaves it empty, so the entities stay in the store.
extension Step1Tests {
  static let deleteLesson = Self.step.lesson(
    rule: "A delete is a use of the context like an insert: it and its save run inside one "
      + "awaited perform block. Once the deletion is saved, the object is invalidated: "
      + "nothing may keep it and read it again.",
    hint: "Write delete() the way configure() works now, in both shapes, and ask what each "
      + "shape still keeps once the entity is gone.", read: "stretch-task")

  static let deleteCheck = Self.step.check(
    "delete() from many concurrent tasks records no violation and empties the store", .stretch)

  /// Each task configures a controller of its own and deletes its entity; afterwards a fresh
  /// context finds no entity, every controller's `name()` is nil and `rename(to:)` does nothing.
  /// The store is counted before `rename(to:)` runs: its save would write a deletion that
  /// `delete()` left unsaved.
  @Test(
    "delete() from many concurrent tasks records no violation and empties the store",
    arguments: Subject.all)
  func deleteFromManyTasks(_ subject: Subject) async {
    await exam(subject.side, Self.deleteCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step1-delete")
      let controllers = (0..<Self.concurrentCallers).map { _ in subject.make(container) }
      try await concurrently(controllers.count, "configure() then delete() calls") { index in
        try await controllers[index].configure()
        try await controllers[index].delete()
      }
      let stored = try await subject.storedNames(in: container)
      var named: [String] = []
      var renames: [String] = []
      for controller in controllers {
        if let name = await controller.name() { named.append(name) }
        let rename = await Self.outcome { try await controller.rename(to: "after delete()") }
        if rename.text != "returned normally" { renames.append(rename.text) }
      }
      expectNoViolations(
        container.violations,
        while: "configure(), delete(), then name() and rename(to:) ran for "
          + "\(controllers.count) controllers in concurrent tasks",
        lesson: Self.deleteLesson)
      expect(
        stored.isEmpty && named.isEmpty && renames.isEmpty,
        observed: "after \(controllers.count) configure() and delete() calls a fresh context "
          + "counts \(stored.count) entities; \(named.count) controller(s) still report a "
          + "name; rename(to:) afterwards "
          + (renames.isEmpty ? "returned normally" : renames.first!),
        lesson: Self.deleteLesson)
    }
  }

  static let failedDeleteCheck = Self.step.check(
    "a save that fails inside delete() reaches the caller", .stretch)

  /// As for configure() and rename(to:): the context made read-only, delete()'s save must throw
  /// to the caller, not be left in a `Task`, a fire-and-forget `perform` or a `try?`.
  @Test("a save that fails inside delete() reaches the caller", arguments: Subject.all)
  func failedDeleteReachesTheCaller(_ subject: Subject) async {
    await exam(subject.side, Self.failedDeleteCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.failedDelete, subject)
    }
  }

  /// A `try!` on delete()'s save ends the process: this runs in a child process. Then the
  /// context is writable again, and a second delete() must find the entity and save.
  static func failedDelete(_ subject: Subject) async throws {
    let container = PersistentContainer(name: "step1-failed-delete")
    let controller = subject.make(container)
    try await controller.configure()
    let context = try Self.keptContext(of: controller, lesson: Self.deleteLesson)
    context.isReadOnly = true
    let deleted = await Self.outcome { try await controller.delete() }
    // The deletion was not saved: the controller must still know its entity, to delete it now.
    context.isReadOnly = false
    let retried = await Self.outcome { try await controller.delete() }
    let left = try await subject.storedNames(in: container).count
    expect(
      deleted.refused && retried.text == "returned normally" && left == 0,
      observed: "with the controller's context read-only, so that its save throws, "
        + "delete() \(deleted.text); writable again, delete() \(retried.text) and a fresh "
        + "context counts \(left) entities",
      lesson: Self.step.lesson(
        rule: "An async method is done when it returns: its block has run, and the block's "
          + "error reaches the caller. A delete that failed to save deleted nothing: the "
          + "controller still knows its entity, so that the caller can try again.",
        hint: "Await the block that deletes and saves; let the save's error through, and forget "
          + "the entity (or its ID) only once the save has succeeded.",
        read: "stretch-task"))
  }
}
