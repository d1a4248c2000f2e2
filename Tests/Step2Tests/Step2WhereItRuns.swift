import ManagedObjectCore
import Testing
import WorkshopSupport

/// Where the controller's work runs: in a background context of its own, without blocking the
/// caller's thread, and with nothing handed to an unstructured Task. No value shows these: a
/// `performAndWait`, the view context or a `Task` gets every name right.
extension Step2Tests {
  static let whereItRunsCheck = step.check(
    "configure(name:) and update(_:) save from background contexts without blocking the caller",
    .passesOnStarter)

  /// A save observer runs inside the save: inside the caller's Swift task means the block ran
  /// on the caller's thread (`performAndWait`). The view context, which belongs to the UI, must
  /// be left alone: it registers no entity.
  @Test(
    "configure(name:) and update(_:) save from background contexts without blocking the caller",
    arguments: Subject.all)
  func savesFromBackgroundContexts(_ subject: Subject) async {
    await exam(subject.side, Self.whereItRunsCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step2-where")
      // The view context keeps every object it touches, so that work done there shows (an
      // unchanged object is otherwise let go once saved, as Core Data does).
      container.viewContext.retainsRegisteredObjects = true
      let log = SaveLog(container)
      defer { log.stop() }
      let controller = subject.make(container)
      try await Self.teaching { try await controller.configure(name: "where") }
      try await Self.teaching { try await controller.update("where else") }
      let view = container.viewContext
      let onTheView = await view.perform { view.registeredObjects.count }
      let blocked = log.savesInATask.map { "the save of \($0.context) ran \($0.place)" }
      expect(
        blocked.isEmpty && onTheView == 0,
        observed: (blocked.isEmpty
          ? ""
          : blocked.joined(separator: "; ") + ", on a thread that waited blocked; ")
          + "the view context holds \(onTheView) object(s)",
        lesson: Self.step.lesson(
          rule: "Each operation makes a background context of its own and awaits its `perform`: "
            + "the caller's thread stays free, and the view context, which belongs to the UI, "
            + "is left alone.",
          hint: "`container.newBackgroundContext()` in each method, and `try await moc.perform "
            + "{ … }`: `performAndWait` is for synchronous code.", read: "pitfalls-22"))
    }
  }

  static let noTaskCheck = step.check(
    "the controller starts no unstructured Task: each method's work is done when it returns",
    .passesOnStarter)

  @Test(
    "the controller starts no unstructured Task: each method's work is done when it returns",
    arguments: Subject.all)
  func startsNoTask(_ subject: Subject) async {
    await exam(subject.side, Self.noTaskCheck, subject: subject.testDescription) {
      let tasks = try unstructuredTasks(of: subject.side, folder: "Step2-ObjectIDRefetch")
      expect(
        tasks.isEmpty,
        observed: "unstructured tasks in the source:\n  " + tasks.joined(separator: "\n  "),
        lesson: Self.step.lesson(
          rule: "A method is done when it returns: work in an unstructured task (a `Task { … }`, "
            + "a `Task.detached`: setting a merge policy, a save) runs on after the return "
            + "unless awaited, races with what follows, and its errors go nowhere.",
          hint: "Drop the task: do the work in the method itself, before or inside the awaited "
            + "`perform`.",
          read: "pitfalls-22"))
    }
  }
}
