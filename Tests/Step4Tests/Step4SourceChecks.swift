import Testing
import WorkshopSupport

/// What running cannot show reliably: an executor that hands its work to an unstructured `Task`.
/// The task runs on after `enqueue` or `checkIsolated()` returned, usually at once, so most runs
/// look right: a job that reaches the context late, a check that stops the program only after
/// its caller went on.
extension Step4Tests {
  static let noTaskCheck = step.check(
    "the executor starts no unstructured Task: a job and an answer happen when asked",
    .passesOnStarter)

  @Test(
    "the executor starts no unstructured Task: a job and an answer happen when asked",
    arguments: Subject.all)
  func startsNoTask(_ subject: Subject) async {
    await exam(subject.side, Self.noTaskCheck) {
      let tasks = try unstructuredTasks(of: subject.side, folder: "Step4-CustomExecutor")
      expect(
        tasks.isEmpty,
        observed: "unstructured tasks in the source:\n  " + tasks.joined(separator: "\n  "),
        lesson: Self.step.lesson(
          rule: "An executor acts before it returns: `enqueue` has handed the job to the "
            + "context's perform, `checkIsolated()` has stopped the program or said yes. An "
            + "unstructured task (a `Task { … }`, a `Task.detached`) does it later, on the "
            + "cooperative pool, after the caller went on.",
          hint: "Call the context's perform in `enqueue` itself, and check the queue in "
            + "`checkIsolated()` itself: no unstructured task in the executor.",
          read: "hand-the-job-over-at-once"))
    }
  }
}
