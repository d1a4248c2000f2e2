import Dispatch
import Foundation

/// A scratchpad of managed objects with its own serial queue, like `NSManagedObjectContext`.
///
/// Sendable, as `NSManagedObjectContext` is in the iOS 26 / macOS 26 SDK: a reference to it may
/// travel anywhere, because what it offers from anywhere is thread-safe: routing a `@Sendable`
/// block to its queue (`perform`, `performAndWait`), and `name`, `mergePolicy` and the other
/// locked settings. Everything else (inserting, fetching, saving, and its objects, which are not
/// Sendable) must be used inside `perform` or `performAndWait` (or, for the main-queue
/// ``PersistentContainer/viewContext``, on the main queue). Uses from anywhere else are
/// confinement violations, reported by the container's checker. All of the context's state lives
/// in its `ContextCore`, behind that core's lock, so sharing the reference shares no unguarded
/// state (the locks and their order: `Steps/Core/CONCURRENCY.md`).
public final class ManagedObjectContext: Sendable {
  /// Which queue the context's blocks run on.
  public enum ConcurrencyType: Sendable, Hashable {
    case privateQueue
    case mainQueue
  }

  /// How the async ``perform(schedule:_:)`` runs its block, like Core Data's.
  public enum ScheduledTaskType: Sendable, Hashable {
    /// Run inline when the call is already in this context's perform scope, else enqueue.
    case immediate
    /// Always enqueue behind the blocks already waiting.
    case enqueued
  }

  let core: ContextCore

  init(core: ContextCore) {
    self.core = core
    core.state.withLock { $0.owner = self }
  }

  public var concurrencyType: ConcurrencyType { core.concurrencyType }

  /// A name for debugging and violation messages. Thread-safe.
  public var name: String? {
    get { core.name }
    set { core.name = newValue }
  }

  /// How `save()` resolves conflicts with the store. Thread-safe, so it can be configured right
  /// after the context is made. Default: ``MergePolicy/error``, as in Core Data.
  public var mergePolicy: MergePolicy {
    get { core.state.withLock { $0.mergePolicy } }
    set { core.state.withLock { $0.mergePolicy = newValue } }
  }

  /// A read-only context fetches as usual, but `save()` with changes throws
  /// ``PersistenceError/readOnlyContext(_:)``. Thread-safe. (Core Data has no such switch; a
  /// read/write scheduler uses it to keep reads from writing.)
  public var isReadOnly: Bool {
    get { core.state.withLock { $0.isReadOnly } }
    set { core.state.withLock { $0.isReadOnly = newValue } }
  }

  /// Merge other contexts' saves into this one automatically, on its own queue. Thread-safe.
  public var automaticallyMergesChangesFromParent: Bool {
    get { core.state.withLock { $0.automaticallyMergesChangesFromParent } }
    set { core.state.withLock { $0.automaticallyMergesChangesFromParent = newValue } }
  }

  /// True when the current code may use this context: it runs inside the context's `perform` or
  /// `performAndWait` (or on the main queue, for a main-queue context). Thread-safe. Core Data has
  /// no such query; custom executors need one to answer `checkIsolated()` honestly.
  public var isInPerformScope: Bool { core.isInScope }

  // MARK: - Hierarchy

  /// The context this one saves into and fetches from; nil when it sits on the store.
  public var parent: ManagedObjectContext? { core.parent?.owner }

  /// A new context whose parent is this one: its saves become this context's pending changes,
  /// and reach the store only when this context saves. Thread-safe.
  public func newChildContext(
    concurrencyType: ConcurrencyType = .privateQueue
  ) -> ManagedObjectContext {
    let child = ContextCore(
      concurrencyType: concurrencyType, store: core.store, parent: core,
      reporter: core.reporter, hub: core.hub, name: nil)
    core.hub.register(child)
    return ManagedObjectContext(core: child)
  }

  // MARK: - Perform

  /// Enqueues `block` on the context's queue and returns at once.
  ///
  /// The block is `@Sendable`, as in the iOS 26 SDK: it runs on the context's queue, not where
  /// it was written, so it may capture only Sendable values (the context, object IDs, plain
  /// values), never actor state or a managed object from outside.
  public func perform(_ block: @escaping @Sendable () -> Void) {
    core.enqueue(block)
  }

  /// Runs `block` on the context's queue and returns its result.
  ///
  /// `nonisolated` and not `nonisolated(nonsending)`, like Core Data's: the call leaves the
  /// caller's actor first (SE-0338), and the block runs on the context's queue. So
  /// ``ScheduledTaskType/immediate``, which runs the block inline when the call finds itself on
  /// this context's queue, enqueues like ``ScheduledTaskType/enqueued`` when called from async
  /// code: by the time it looks, the call is on the cooperative pool.
  ///
  /// Core Data declares it `rethrows`; the core uses typed throws, which is the same for every
  /// closure that does not spell out `throws(SomeError)` (see Tests/FIDELITY.md's fidelity table).
  public func perform<Result, Failure: Error>(
    schedule: ScheduledTaskType = .immediate,
    _ block: @escaping @Sendable () throws(Failure) -> Result
  ) async throws(Failure) -> Result {
    try await core.perform(schedule: schedule, block)
  }

  /// Runs `block` on the context's queue and waits for it. Reentrant: called from inside this
  /// context's perform scope it runs inline. Code inside may also use the context that called it.
  public func performAndWait<Result, Failure: Error>(
    _ block: @Sendable () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try core.performAndWait(block)
  }

  /// The contexts whose queues wait for each other through this one's, by name, this one's
  /// first, when they do; nil otherwise. Each of them runs a block on a thread that waits in
  /// `performAndWait` for the next one's queue, and the last waits for this one's: a serial
  /// queue starts nothing while its block runs, so none of them will run anything again, a
  /// deadlock. Thread-safe. Core Data has no such query; a check asks it to report a deadlock
  /// as soon as it is certain, instead of waiting out a bound.
  public var performAndWaitCycle: [String]? { WaitsFor.cycle(through: core.id) }

  /// How many threads are in `performAndWait` on this context now: waiting for its queue, or
  /// running their block there. Thread-safe. Core Data has no such query; a check asks it to
  /// see at once that a caller blocked its thread waiting for a busy context, instead of waiting
  /// out a bound for another job of that thread that never comes.
  public var threadsInPerformAndWait: Int { WaitsFor.count(for: core.id) }

  // MARK: - Objects

  /// Creates and inserts a new object, like `NSEntityDescription.insertNewObject(forEntityName:into:)`.
  @discardableResult
  public func insertNewObject<Entity: ManagedObject>(of entity: Entity.Type) -> Entity {
    let object = Entity(core.registrationForInsert(of: Entity.self))
    core.didInsert(object)
    return object
  }

  /// Marks `object` for deletion at the next save. Relationships pointing to it are nullified
  /// at the end of the event (see ``propagatesDeletesAtEndOfEvent``). An object never saved then
  /// leaves the context instead: Apple, "it is simply removed from the receiver".
  public func delete(_ object: ManagedObject) {
    core.delete(object)
  }

  /// The object with `objectID`, from this context or fetched from the store.
  ///
  /// - Throws: ``PersistenceError/objectNotFound(_:)``, ``PersistenceError/objectDeleted(_:)``,
  ///   ``PersistenceError/foreignStore(_:)`` or ``PersistenceError/temporaryIDOutsideItsContext(_:)``.
  public func existingObject(with objectID: ManagedObjectID) throws(PersistenceError)
    -> ManagedObject
  {
    try core.existingObject(with: objectID)
  }

  /// The object with `objectID` as an `Entity`; ``PersistenceError/entityMismatch(_:expected:)``
  /// if it is another entity.
  public func existingObject<Entity: ManagedObject>(
    with objectID: ManagedObjectID, as entity: Entity.Type
  ) throws(PersistenceError) -> Entity {
    guard let object = try core.existingObject(with: objectID) as? Entity else {
      throw .entityMismatch(objectID, expected: Entity.entityName)
    }
    return object
  }

  /// Gives inserted objects their permanent IDs now, before the save.
  public func obtainPermanentIDs(for objects: [ManagedObject]) {
    core.obtainPermanentIDs(for: objects)
  }

  // MARK: - Fetching

  public func fetch<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [Entity] {
    try core.fetch(request)
  }

  /// The IDs of the objects `request` would fetch, without materializing them.
  public func fetchObjectIDs<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [ManagedObjectID] {
    try core.fetchObjectIDs(request)
  }

  /// Dictionaries instead of objects: `request.propertiesToFetch` (attributes and aggregates),
  /// grouped by `request.propertiesToGroupBy`. No object is materialized. Reads the saved state
  /// of this context's parent (or store), not this context's pending changes.
  public func fetchDictionaries<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [[String: any Sendable]] {
    try core.fetchDictionaries(request)
  }

  /// How many objects `request` would fetch.
  public func count<Entity: ManagedObject>(
    for request: FetchRequest<Entity>
  ) throws(PersistenceError) -> Int {
    try core.count(for: request)
  }

  // MARK: - Batch requests

  /// Inserts rows straight into the store; see ``BatchInsertRequest``.
  @discardableResult
  public func execute<Entity: ManagedObject>(
    _ request: BatchInsertRequest<Entity>
  ) throws(PersistenceError) -> BatchResult {
    try core.execute(request)
  }

  /// Updates rows straight in the store; see ``BatchUpdateRequest``.
  @discardableResult
  public func execute<Entity: ManagedObject>(
    _ request: BatchUpdateRequest<Entity>
  ) throws(PersistenceError) -> BatchResult {
    try core.execute(request)
  }

  /// Deletes rows straight from the store; see ``BatchDeleteRequest``.
  @discardableResult
  public func execute<Entity: ManagedObject>(
    _ request: BatchDeleteRequest<Entity>
  ) throws(PersistenceError) -> BatchResult {
    try core.execute(request)
  }

  /// Merges a change made outside these contexts (a batch request's `changes`) into each of
  /// them, on each context's own queue, and returns when all are done. Updated objects are
  /// refreshed and inserted ones registered as faults, as by
  /// ``mergeChanges(fromContextDidSave:)``; deleted ones are removed from the context, not
  /// deleted there (Apple, `NSBatchDeleteRequest`: "remove any deleted objects from memory").
  public static func mergeChanges(
    fromRemoteContextSave changes: ContextDidSave, into contexts: [ManagedObjectContext]
  ) {
    for context in contexts {
      context.performAndWait { context.core.mergeRemoteChanges(changes) }
    }
  }

  // MARK: - Changes

  public var hasChanges: Bool { core.hasChanges }
  public var insertedObjects: Set<ManagedObject> { core.insertedObjects() }
  public var updatedObjects: Set<ManagedObject> { core.updatedObjects() }
  public var deletedObjects: Set<ManagedObject> { core.deletedObjects() }
  public var registeredObjects: Set<ManagedObject> { core.registeredObjects() }

  /// Writes all pending changes to the store, all or nothing.
  ///
  /// - Throws: ``PersistenceError/validation(_:)`` when a required attribute is nil;
  ///   ``PersistenceError/mergeConflict(_:)`` when a row changed since it was read and the merge
  ///   policy is ``MergePolicy/error``.
  public func save() throws(PersistenceError) {
    try core.save()
  }

  /// Discards all pending changes: inserted objects become invalid, the rest revert.
  public func rollback() {
    core.rollback()
  }

  /// Forgets every object; objects fetched before are invalid afterwards.
  public func reset() {
    core.reset()
  }

  /// Reads `object` from the store again. With `mergeChanges`, pending changes are kept on top;
  /// without, they are discarded and the object becomes a fault. A fault stays one. If another
  /// context deleted the row, the object becomes a pending deletion here, with its last values.
  public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
    core.refresh(object, mergeChanges: mergeChanges)
  }

  /// Brings another context's save into this one: updated objects are refreshed (keeping this
  /// context's pending changes), `delete(_:)` is called on deleted ones, which stay pending
  /// deletions until this context saves, and inserted ones are registered as faults. Observers of
  /// ``addObjectsDidChangeObserver(_:)`` hear what changed.
  public func mergeChanges(fromContextDidSave note: ContextDidSave) {
    core.mergeChanges(fromContextDidSave: note)
  }
}
