// PROBE: fails: KeyPath | Sendable
// `#Predicate` and `SortDescriptor` take Sendable key paths, and a key path to a property
// isolated to a global actor is not Sendable (SE-0418): on an isolated entity neither compiles.
// A request on one fetches without them; filter and sort the results on the actor instead.
import Foundation
import ManagedObjectCore
import Subject

@CoreDataActor
final class Bookmark: ManagedObject {
  @Attribute var title: String = ""
}

@CoreDataActor
func bookmarks(startingWith prefix: String) -> FetchRequest<Bookmark> {
  FetchRequest<Bookmark>(
    predicate: #Predicate { $0.title.starts(with: prefix) },
    sortDescriptors: [SortDescriptor(\.title)])
}
