import Testing
import WorkshopSupport

/// The 2023 talk's slides 59–66 from another actor, as the compiler sees them today: `await` on
/// every call (2023 talk, slides 60 and 66) is no longer enough when the entity itself would
/// cross, and a task that hands entities back (2023 talk, slide 62) or captures the caller's
/// entity (2023 talk, slide 64) does not compile.
extension Step3ProbeTests {
  @Test(
    "probe CreateFromAnotherActor: an entity inserted on CoreDataActor cannot be returned to another actor",
    arguments: Subject.all)
  func createFromAnotherActor(_ subject: Subject) async {
    await Self.probe("CreateFromAnotherActor", subject, starter: .failsOnStarter)
  }

  @Test(
    "probe DeleteFromAnotherActor: another actor cannot hand its entity to delete, even with await",
    arguments: Subject.all)
  func deleteFromAnotherActor(_ subject: Subject) async {
    await Self.probe("DeleteFromAnotherActor", subject, starter: .failsOnStarter)
  }

  @Test(
    "probe ReadInATask: a task on CoreDataActor cannot hand the entities it fetched to another actor",
    arguments: Subject.all)
  func readInATask(_ subject: Subject) async {
    await Self.probe("ReadInATask", subject)
  }

  @Test(
    "probe UpdateInATask: a task on CoreDataActor cannot capture another actor's entity",
    arguments: Subject.all)
  func updateInATask(_ subject: Subject) async {
    await Self.probe("UpdateInATask", subject)
  }
}
