import ManagedObjectCore

/// The 2023 talk's running example, with its one attribute (2023 talk, slides 9, 24).
nonisolated public final class CoreDataEntity: ManagedObject {
  @Attribute public var name: String = ""
}
