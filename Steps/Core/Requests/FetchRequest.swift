import Foundation

/// What to fetch, like `NSFetchRequest`: an entity, a predicate, a sort order and a window.
///
/// A class, and not Sendable, like `NSFetchRequest`: build it inside the `perform` (or actor)
/// that uses it; the compiler refuses to let one built outside be shared with it. Run it with
/// `fetch(_:)` for objects, `fetchObjectIDs(_:)` for IDs, `count(for:)` or
/// `fetchDictionaries(_:)`.
public final class FetchRequest<Entity: ManagedObject> {
  /// Which objects match; nil matches all. Written with `#Predicate<Entity> { … }`.
  public var predicate: Predicate<Entity>?
  /// The result order; unsorted results come in store order, then pending inserts.
  public var sortDescriptors: [SortDescriptor<Entity>]
  /// The most results to return; 0 means no limit.
  public var fetchLimit: Int
  /// How many leading results to skip.
  public var fetchOffset: Int
  /// When above 0, `fetch(_:)` returns objects whose values load this many at a time, on first
  /// use (faults), as Core Data's batched results do. Ignored when sorting, which reads them all.
  public var fetchBatchSize: Int = 0
  /// Whether the fetch sees the context's unsaved changes (true by default, as in Core Data):
  /// pending inserts are found, pending deletions are not, and a changed object is matched
  /// against its changed values. When false, only what the store holds counts.
  public var includesPendingChanges = true
  /// Whether fetched objects that are already registered take the store's current values (false
  /// by default, as in Core Data: a refetch returns the registered object as it is). Their
  /// unsaved changes are kept, laid on top of the new values.
  public var shouldRefreshRefetchedObjects = false
  /// For ``ManagedObjectContext/fetchDictionaries(_:)``: the keys of each dictionary,
  /// attributes and aggregates; empty means every attribute.
  public var propertiesToFetch: [FetchedProperty] = []
  /// For ``ManagedObjectContext/fetchDictionaries(_:)``: one dictionary per distinct
  /// combination of these attributes' values, sorted by them.
  public var propertiesToGroupBy: [String] = []

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
