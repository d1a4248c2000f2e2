import ManagedObjectCore

/// The 2023 talk's running example, isolated to the global actor (2023 talk, slide 38): only
/// code on CoreDataActor can touch `name`. It stays non-Sendable (SE-0434: a global-actor
/// subclass of a non-Sendable class is not Sendable), so it never leaves the actor; its
/// `objectID` and its values do.
@CoreDataActor
public final class CoreDataEntity: ManagedObject {
  @Attribute public var name: String = ""
}
