import ManagedObjectCore
import Testing
import WorkshopSupport

/// How the actor finds its entity again. It keeps the entity's ID, not the entity, so once
/// `configure()`'s block has returned nothing holds the saved entity, and the context lets it go:
/// a context keeps an unchanged object only while something references it (Apple,
/// `retainsRegisteredObjects`: "If set to false, then the receiver keeps strong references to
/// registered objects only when they are inserted, updated, deleted, or locked. The default is
/// false."; the core does the same). A look-up that asks only the registered objects,
/// `registeredObject(for:)`, then answers nil, on a Mac with Core Data as here; a look-up that
/// may fetch, `existingObject(with:as:)`, finds the row. The other checks would report such a
/// rename as a lost name or a missing error, without saying why.
extension Step1Tests {
  static let actorLookupCheck = Self.step.check(
    "the actor finds the entity configure() saved: rename(to:) renames it, name() reads it",
    .passesOnStarter)

  @Test(
    "the actor finds the entity configure() saved: rename(to:) renames it, name() reads it",
    arguments: ExamSide.selected)
  func actorFindsTheSavedEntity(_ side: ExamSide) async {
    await exam(side, Self.actorLookupCheck) {
      let (_, actorSubject) = Subject.of(side)
      let container = PersistentContainer(name: "step1-lookup")
      let controller = actorSubject.make(container)
      try await controller.configure()
      let renamed = await Self.outcome { try await controller.rename(to: "found") }
      let reported = await controller.name()
      let stored = try await actorSubject.storedNames(in: container)
      expect(
        renamed.text == "returned normally" && stored == ["found"] && reported == "found",
        observed: "configure() returned; then rename(to: \"found\") \(renamed.text), the store "
          + "holds \(stored), and name() reports \(String(describing: reported))",
        lesson: Self.step.lesson(
          rule: "A context keeps a saved, unchanged object only while your code holds it (Core "
            + "Data's retainsRegisteredObjects is false by default). The actor keeps the ID, so "
            + "after configure() nothing holds the entity and the context lets it go: "
            + "registeredObject(for:) then answers nil, as it would on a Mac.",
          hint: "Inside the block, look the entity up with the call that fetches it when the "
            + "context no longer has it, `existingObject(with:as:)`, not `registeredObject(for:)`, "
            + "which only asks what the context still holds.",
          read: "you-will-need"))
    }
  }
}
