import ManagedObjectCore

/// The talks' running example. Nothing but discipline keeps code off the wrong thread: any
/// function, isolated or not, may read and write `name`.
// TODO: isolate the entity to the global actor, so that only code on CoreDataActor can touch
// `name`. Do not declare it Sendable as the 2023 talk did: `ManagedObject` is not Sendable, and
// neither is a subclass of it (SE-0434); the compiler now says so.
public final class CoreDataEntity: ManagedObject {
  @Attribute public var name: String = ""
}
