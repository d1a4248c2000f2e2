import Foundation

/// An in-memory store with its contexts, like `NSPersistentContainer`. Sendable: share it freely.
public final class PersistentContainer: Sendable {
  public let name: String
  /// What happens when code breaks a context's confinement.
  public let concurrencyCheckingPolicy: ConcurrencyCheckingPolicy
  let store = InMemoryStore()
  let reporter: ViolationReporter
  let hub = SaveHub()
  /// The main-queue context, for the UI. Use it on the main queue (the main actor) or in its
  /// `perform`.
  public let viewContext: ManagedObjectContext

  /// - Parameter concurrencyChecking: ``ConcurrencyCheckingPolicy/record`` (the default) keeps
  ///   violations in ``violations``; ``ConcurrencyCheckingPolicy/trap`` stops the process like
  ///   Core Data's concurrency debugging; ``ConcurrencyCheckingPolicy/off`` checks nothing.
  public init(name: String, concurrencyChecking: ConcurrencyCheckingPolicy = .record) {
    self.name = name
    concurrencyCheckingPolicy = concurrencyChecking
    reporter = ViolationReporter(policy: concurrencyChecking)
    let core = ContextCore(
      concurrencyType: .mainQueue, store: store, reporter: reporter, hub: hub, name: "viewContext")
    viewContext = ManagedObjectContext(core: core)
    hub.register(core)
  }

  /// A new private-queue context. Each call makes a new one.
  public func newBackgroundContext() -> ManagedObjectContext {
    let core = ContextCore(
      concurrencyType: .privateQueue, store: store, reporter: reporter, hub: hub, name: nil)
    hub.register(core)
    return ManagedObjectContext(core: core)
  }

  /// Runs `block` with a new private-queue context on that context's queue, and returns at once.
  ///
  /// Stricter than Core Data, whose block here is not `@Sendable` even in the iOS 26 SDK: the
  /// block runs on the new context's queue, so it must not capture what belongs elsewhere.
  public func performBackgroundTask(_ block: @escaping @Sendable (ManagedObjectContext) -> Void) {
    let context = newBackgroundContext()
    context.perform { block(context) }
  }

  /// Runs `block` with a new private-queue context on that context's queue and returns its
  /// result, which must be Sendable: objects of the context must not outlive the block.
  public func performBackgroundTask<Result: Sendable, Failure: Error>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws(Failure) -> Result
  ) async throws(Failure) -> Result {
    let context = newBackgroundContext()
    return try await context.perform(schedule: .enqueued) { () throws(Failure) -> Result in
      try block(context)
    }
  }

  // MARK: - Violations

  /// The violations recorded so far, oldest first (policy ``ConcurrencyCheckingPolicy/record``).
  public var violations: [ConcurrencyViolation] { reporter.recorded }

  /// How many threads are in `performAndWait` on any context of this container now: waiting
  /// for its queue, or running their block there. Thread-safe. Core Data has no such query, as
  /// ``ManagedObjectContext/threadsInPerformAndWait``: for a check that holds a queue it cannot
  /// name the context of.
  public var threadsInPerformAndWait: Int { WaitsFor.count(in: store) }

  /// Returns the recorded violations and forgets them.
  @discardableResult
  public func removeAllViolations() -> [ConcurrencyViolation] {
    reporter.removeAll()
  }

  // MARK: - Saves

  /// A stream of every save of every context of this container, from now on.
  public func saveNotifications() -> AsyncStream<ContextDidSave> {
    hub.stream()
  }

  /// Calls `observer` after every save, on the saving context's queue.
  @discardableResult
  public func addSaveObserver(
    _ observer: @escaping @Sendable (ContextDidSave) -> Void
  ) -> SaveObserverToken {
    hub.addObserver(observer)
  }

  /// Calls `observer` before every save that has changes, on the saving context's queue, inside
  /// its `perform`, like `NSManagedObjectContext.willSaveObjectsNotification`. Apple's advice for
  /// that notification holds here: do not block in it, and do no asynchronous work.
  @discardableResult
  public func addWillSaveObserver(
    _ observer: @escaping @Sendable (ContextWillSave) -> Void
  ) -> SaveObserverToken {
    hub.addWillSaveObserver(observer)
  }

  /// Ends a registration made with ``addSaveObserver(_:)`` or ``addWillSaveObserver(_:)``.
  public func removeSaveObserver(_ token: SaveObserverToken) {
    hub.removeObserver(token)
  }

  /// The ID a ``ManagedObjectID/uriRepresentation()`` names, if it is one of this store's.
  public func managedObjectID(forURIRepresentation uri: URL) -> ManagedObjectID? {
    guard let id = ManagedObjectID(uri: uri), id.storeIdentifier == store.identifier else {
      return nil
    }
    return id
  }
}
