import Testing
import WorkshopSupport

/// What running cannot show reliably: work handed to an unstructured `Task` inside a method. It
/// runs on after the method returned, usually at once, so most runs look right; its errors go
/// nowhere, and what it changes races with the next call.
extension Step1Tests {
  static let noTaskCheck = Self.step.check(
    "the controllers start no unstructured Task: each method's work is done when it returns",
    .passesOnStarter)

  @Test(
    "the controllers start no unstructured Task: each method's work is done when it returns",
    arguments: ExamSide.selected)
  func startsNoTask(_ side: ExamSide) async {
    await exam(side, Self.noTaskCheck) {
      let tasks = try unstructuredTasks(of: side, folder: "Step1-UnsafeController")
      expect(
        tasks.isEmpty,
        observed: "unstructured tasks in the source:\n  " + tasks.joined(separator: "\n  "),
        lesson: Self.step.lesson(
          rule: "An async method is done when it returns. Work in an unstructured task (a "
            + "`Task { … }`, a `Task.detached`) runs on after the return unless awaited, off "
            + "the context's queue and off the actor: its errors go nowhere, and what it "
            + "changes (the kept entity or ID) races with the next call. Awaited, it is only a "
            + "detour: a task of its own, in which the block still has to be awaited.",
          hint: "Drop the task and await the context's block itself, and change what the "
            + "controller keeps inside the block (class) or right after the await (actor).",
          read: "pitfalls"))
    }
  }
}
