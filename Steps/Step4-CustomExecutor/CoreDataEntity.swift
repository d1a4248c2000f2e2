import ManagedObjectCore

/// The talks' running example, isolated to the global actor: only code on CoreDataActor can
/// touch `name`. Isolation is what makes sharing it safe; `Sendable` has to be said explicitly,
/// because Swift infers it only when the superclass is Sendable, and `ManagedObject` is not.
@CoreDataActor
public final class CoreDataEntity: ManagedObject, Sendable {
  @Attribute public var name: String = ""
}
