import Foundation

/// What to fetch, like `NSFetchRequest`: an entity, a predicate, a sort order and a window.
///
/// Not Sendable, like `NSFetchRequest`: build it inside the `perform` (or actor) that uses it.
/// Run it with `fetch(_:)` for objects, `fetchObjectIDs(_:)` for IDs, or `count(for:)`.
public struct FetchRequest<Entity: ManagedObject> {
  /// Which objects match; nil matches all. Written with `#Predicate<Entity> { … }`.
  public var predicate: Predicate<Entity>?
  /// The result order; unsorted results come in store order, then pending inserts.
  public var sortDescriptors: [SortDescriptor<Entity>]
  /// The most results to return; 0 means no limit.
  public var fetchLimit: Int
  /// How many leading results to skip.
  public var fetchOffset: Int

  public init(
    predicate: Predicate<Entity>? = nil,
    sortDescriptors: [SortDescriptor<Entity>] = [],
    fetchLimit: Int = 0,
    fetchOffset: Int = 0
  ) {
    self.predicate = predicate
    self.sortDescriptors = sortDescriptors
    self.fetchLimit = fetchLimit
    self.fetchOffset = fetchOffset
  }
}

@available(*, unavailable, message: "build a FetchRequest where it is used, inside perform")
extension FetchRequest: Sendable {}
