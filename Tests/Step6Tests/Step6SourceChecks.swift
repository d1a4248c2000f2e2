import Testing
import WorkshopSupport

/// What running cannot show reliably: work handed to an unstructured `Task`. It runs on after
/// the code that started it, usually at once, so most runs look right: a context's name set
/// late, an isolation check that stops the program only after the caller went on.
extension Step6Tests {
  static let noTaskCheck = step.check(
    "the model actor's code starts no unstructured Task", .passesOnStarter)

  @Test("the model actor's code starts no unstructured Task", arguments: Subject.all)
  func startsNoTask(_ subject: Subject) async {
    await exam(subject.side, Self.noTaskCheck) {
      let tasks = try unstructuredTasks(of: subject.side, folder: "Step6-ModelActor")
      expect(
        tasks.isEmpty,
        observed: "unstructured tasks in the source:\n  " + tasks.joined(separator: "\n  "),
        lesson: Self.step.lesson(
          rule: "A model actor's work runs on its own queue, in order, and is done when the "
            + "call returns. An unstructured task (a `Task { … }`, a `Task.detached`) runs it "
            + "later, elsewhere: `checkIsolated()` that stops the program only after the caller "
            + "went on, a setting that lands late.",
          hint: "Do the work where it is written: no unstructured task in the actor, its "
            + "executor or its protocol.", read: "the-rule"))
    }
  }
}
