import ManagedObjectCore

/// The talks' running example: an entity with one attribute.
nonisolated public final class CoreDataEntity: ManagedObject {
  @Attribute public var name: String = ""
}
