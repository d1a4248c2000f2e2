import Testing
import WorkshopSupport

/// The compile-time half of step 1, true since perform blocks became `@Sendable` (iOS 26 SDK):
/// the probes in `Tests/Step1Tests/Probes`, compiled against each side. They hold from the start;
/// they are the walls the attendee's fix runs into, and the road to step 2.
@Suite("Step 1 — what the compiler now checks")
struct Step1ProbeTests {
  static func probe(_ name: String, _ side: ExamSide) async {
    await examProbe(
      name, in: "Tests/Step1Tests/Probes", against: side == .yours ? "Step1" : "Step1Solution",
      side: side, step: Step1Tests.step, lesson: lesson)
  }

  static let lesson = Step1Tests.step.lesson(
    rule: "A perform block is @Sendable: it runs on the context's queue, so it cannot touch an "
      + "actor's state or capture a managed object; the context, object IDs and plain values go "
      + "in, IDs and values come out.",
    hint: "Keep the entity's objectID, not the entity, and look it up inside the block.",
    read: "what-the-compiler-says-now")

  @Test(
    "probe ActorStateInPerform: a perform block cannot write the actor's state",
    arguments: ExamSide.selected)
  func actorStateInPerform(_ side: ExamSide) async {
    await Self.probe("ActorStateInPerform", side)
  }

  @Test(
    "probe KeptObjectInPerform: a kept managed object cannot go into a perform block",
    arguments: ExamSide.selected)
  func keptObjectInPerform(_ side: ExamSide) async {
    await Self.probe("KeptObjectInPerform", side)
  }

  @Test(
    "probe ImplicitSelfInPerform: a perform block spells out self", arguments: ExamSide.selected)
  func implicitSelfInPerform(_ side: ExamSide) async {
    await Self.probe("ImplicitSelfInPerform", side)
  }

  @Test(
    "probe KeptIDInPerform: a kept objectID goes into a perform block",
    arguments: ExamSide.selected)
  func keptIDInPerform(_ side: ExamSide) async {
    await Self.probe("KeptIDInPerform", side)
  }
}
