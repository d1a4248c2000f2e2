// PROBE: warns: Sendable | already unavailable
// Declaring an isolated entity `Sendable` is diagnosed: `ManagedObject` says it is not Sendable,
// so the declaration has no effect. Before the core said so
// explicitly, this compiled silently, through a compiler bug (swiftlang/swift#85713).
import ManagedObjectCore
import Subject

@CoreDataActor
final class Bookmark: ManagedObject, Sendable {
  @Attribute var title: String = ""
}
