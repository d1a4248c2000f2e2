import Testing
import WorkshopSupport

/// The compile-time half of step 1, true since perform blocks became `@Sendable` (iOS 26 SDK):
/// the probes in `Tests/Step1Tests/Probes`, compiled against each side. They hold from the start;
/// they are the walls the attendee's fix runs into, and the road to step 2.
@Suite("Step 1 — what the compiler now checks")
struct Step1ProbeTests {
  struct Case: Sendable, CustomTestStringConvertible {
    let side: ExamSide
    let probe: String
    let check: String
    var module: String { side == .yours ? "Step1" : "Step1Solution" }
    var testDescription: String { "\(side.rawValue) · \(probe)" }
  }

  static let probes: [(name: String, check: String)] = [
    ("ActorStateInPerform", "a perform block cannot write the actor's state"),
    ("KeptObjectInPerform", "a kept managed object cannot go into a perform block"),
    ("ImplicitSelfInPerform", "a perform block spells out self"),
    ("KeptIDInPerform", "a kept objectID goes into a perform block"),
  ]

  static let cases: [Case] = ExamSide.selected.flatMap { side in
    probes.map { Case(side: side, probe: $0.name, check: $0.check) }
  }

  @Test("Compile probes: what a @Sendable perform block lets through", arguments: cases)
  func probe(_ testCase: Case) async {
    let check = ExamCheck(
      step: "Step1", name: "probe \(testCase.probe): \(testCase.check)",
      starter: .passesOnStarter, likelyCauseOfHang: "a compiler that does not finish")
    await exam(testCase.side, check, subject: testCase.testDescription) {
      try await expectProbe(
        testCase.probe, in: "Tests/Step1Tests/Probes", against: testCase.module,
        lesson: Lesson(
          rule: "A perform block is @Sendable: it runs on the context's queue, so it cannot "
            + "touch an actor's state or capture a managed object; the context, object IDs and "
            + "plain values go in, IDs and values come out.",
          hint: "Keep the entity's objectID, not the entity, and look it up inside the block.",
          slide: "slides/01-unsafe-controller.md#what-the-compiler-says-now"))
    }
  }
}
