import Testing
import WorkshopSupport

/// The 2024 talk's slides 25–27 and 31–33, as the compiler sees them today: returning a model
/// object from a nonisolated async function to the main actor compiles (SE-0414), where the
/// slides show an error (2024 talk, slides 27 and 33). What is wrong is the read afterwards,
/// which only the confinement checker sees (`TheReturnedObject`).
extension Step5ProbeTests {
  static let talkLesson = Step5Tests.step.lesson(
    rule: "The result of a nonisolated async call is a fresh region (SE-0414): the compiler lets "
      + "a managed object fetched there reach the main actor. It still belongs to the context "
      + "that fetched it, and reading it anywhere else is a violation the compiler cannot see.",
    hint: "Return a Sendable value or the object's ID, and look it up again in the context of "
      + "the code that uses it.",
    read: "sendable-results")

  @Test(
    "probe ObjectReturnsToTheMainActor: a managed object returned to the main actor compiles",
    arguments: Subject.all)
  func objectReturnsToTheMainActor(_ subject: Subject) async {
    await examProbe(
      "ObjectReturnsToTheMainActor", in: "Tests/Step5Tests/Probes", against: subject.module,
      side: subject.side, step: Step5Tests.step, lesson: Self.talkLesson)
  }

  @Test(
    "probe CellKeepsTheObject: a main-actor cell that keeps a fetched object compiles",
    arguments: Subject.all)
  func cellKeepsTheObject(_ subject: Subject) async {
    await examProbe(
      "CellKeepsTheObject", in: "Tests/Step5Tests/Probes", against: subject.module,
      side: subject.side, step: Step5Tests.step, lesson: Self.talkLesson)
  }
}
