import ManagedObjectCore

/// The talks' running example. Not Sendable: the compiler will not let it cross an actor
/// boundary, so nothing can hold on to it safely.
// TODO: isolate it to the global actor, and say it is Sendable:
// `@CoreDataActor public final class CoreDataEntity: ManagedObject, Sendable`. Then only code on
// CoreDataActor can touch `name`, and the entity may cross actors. (Swift infers Sendable for a
// global-actor class only when its superclass is Sendable; `ManagedObject` is not.)
public final class CoreDataEntity: ManagedObject {
  @Attribute public var name: String = ""
}
