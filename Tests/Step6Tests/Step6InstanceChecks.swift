import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// The part of the step that is new since Step 4: a context, and an executor on it, per instance.
extension Step6Tests {
  static let ownContextCheck = step.check(
    "each model actor owns a background context of its own, not the view context",
    .failsOnStarter)

  @Test(
    "each model actor owns a background context of its own, not the view context",
    arguments: Subject.all)
  func eachActorOwnsItsContext(_ subject: Subject) async {
    await exam(subject.side, Self.ownContextCheck) {
      let container = PersistentContainer(name: "step6-own-context")
      let first = subject.make(container)
      let second = subject.make(container)
      var found: [String] = []
      if first.context === second.context { found.append("two instances share one context") }
      if first.context === container.viewContext || second.context === container.viewContext {
        found.append("an instance runs on the view context, whose queue is the main queue")
      }
      expect(
        found.isEmpty, observed: found.joined(separator: "; "),
        lesson: Self.step.lesson(
          rule: "Each model actor instance owns a context of its own, a background one: two "
            + "instances share the container, never a context or a queue, and none borrows the "
            + "view context, which belongs to the UI.",
          hint: "Look at DataHandler's initializer: which context does it give the executor it "
            + "keeps?", read: "one-executor-per-instance"))
    }
  }
}
