import ManagedObjectCore

/// The 2023 talk's running example (2023 talk, slides 9, 24). Nothing but discipline keeps code
/// off the wrong thread: any function, isolated or not, may read and write `name`.
// TODO: isolate the entity to the global actor, so that only code on CoreDataActor can touch
// `name`. Do not declare it `Sendable`: `ManagedObject` is not Sendable, and neither is an
// isolated subclass of it (SE-0434); the compiler now says so.
public final class CoreDataEntity: ManagedObject {
  @Attribute public var name: String = ""
}
