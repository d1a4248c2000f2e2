import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// The part of the step that is new since Step 4: a context, and an executor on it, per instance.
extension Step6Tests {
  static let ownContextCheck = step.check(
    "each model actor owns a new background context of its own, not the view context or a child",
    .failsOnStarter)

  static let ownContextLesson = step.lesson(
    rule: "Each model actor instance owns a new background context of the container: a "
      + "private-queue context that saves to the store. Two instances share the container, "
      + "never a context or a queue; none borrows the view context, which belongs to the UI, "
      + "and none hangs below it as a child, whose saves stop in the view context.",
    hint: "Look at DataHandler's initializer: which context does it give the executor it "
      + "keeps? `modelContainer.newBackgroundContext()` makes the right one.",
    read: "one-executor-per-instance")

  @Test(
    "each model actor owns a new background context of its own, not the view context or a child",
    arguments: Subject.all)
  func eachActorOwnsItsContext(_ subject: Subject) async {
    await exam(subject.side, Self.ownContextCheck) {
      let container = PersistentContainer(name: "step6-own-context")
      let found = Self.contextFaults(
        of: [subject.make(container), subject.make(container)], in: container)
      expect(
        found.isEmpty, observed: found.joined(separator: "; "), lesson: Self.ownContextLesson)
    }
  }

  /// What is wrong with the contexts `handlers` (made for `container`) run on: nothing, or each
  /// way in which they are not new background contexts of the container, one per instance. Only
  /// the contexts' thread-safe properties are read: no job runs, so any executor will do.
  static func contextFaults(of handlers: [any Handler], in container: PersistentContainer)
    -> [String]
  {
    let contexts = handlers.map(\.context)
    var found: [String] = []
    if Set(contexts.map(ObjectIdentifier.init)).count < contexts.count {
      found.append("two instances share one context")
    }
    if contexts.contains(where: { $0 === container.viewContext }) {
      found.append("an instance runs on the view context, whose queue is the main queue")
    } else if contexts.contains(where: { $0.concurrencyType == .mainQueue }) {
      found.append("an instance runs on a main-queue context: its queue is the main queue")
    }
    if let child = contexts.first(where: { $0.parent != nil }) {
      let parent = child.parent === container.viewContext ? "the view context" : "another context"
      found.append(
        "an instance's context is a child of \(parent) (newChildContext()): its saves stop in "
          + "\(parent)'s unsaved changes, never reach the store, and its reads see what "
          + "\(parent) holds")
    }
    return found
  }
}
