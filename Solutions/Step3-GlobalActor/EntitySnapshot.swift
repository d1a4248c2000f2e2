import ManagedObjectCore

/// What of an entity may leave CoreDataActor: its permanent ID and its values, all Sendable.
/// The entity itself stays on the actor (SE-0434); code elsewhere keeps this, and looks the
/// object up again by `id` on the actor, or in its own context inside `perform`. `nonisolated`
/// keeps it off the main actor in an Xcode 26 app target.
nonisolated public struct EntitySnapshot: Sendable, Hashable {
  public let id: ManagedObjectID
  public let name: String

  public init(id: ManagedObjectID, name: String) {
    self.id = id
    self.name = name
  }
}
