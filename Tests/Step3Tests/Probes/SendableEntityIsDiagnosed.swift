// PROBE: warns: Sendable | unavailable
// An isolated entity declared `Sendable` draws a warning and stays non-Sendable: `ManagedObject`
// says it is not (before it did, this compiled silently: swiftlang/swift#85713). The warning says
// "is already unavailable" (Swift 6.3) or "inherits an unavailable 'Sendable' conformance" (6.4).
import ManagedObjectCore
import Subject

@CoreDataActor
final class Bookmark: ManagedObject, Sendable {
  @Attribute var title: String = ""
}
