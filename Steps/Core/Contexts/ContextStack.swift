import Foundation

/// The MagicalRecord stack, retold: the context hierarchy most Core Data apps of the 2010s used.
///
///     store
///       └─ rootSavingContext        private queue: the only context that writes to the store
///            ├─ defaultContext      main queue: the UI reads here; merges the root's saves
///            └─ newContext() …      private queue: one per piece of background work
///
/// `save { localContext in … }` runs the block in a new child of the root, then saves it and
/// every parent up to the store (MagicalRecord's `saveWithBlock:` with `MRSaveParentContexts`).
/// The UI context never saves; writes never happen on the main queue.
public final class ContextStack: Sendable {
  public let container: PersistentContainer
  /// The private-queue context on the store; every save ends here.
  public let rootSavingContext: ManagedObjectContext
  /// The main-queue context for the UI, a child of the root that merges the root's saves.
  public let defaultContext: ManagedObjectContext

  public init(container: PersistentContainer) {
    self.container = container
    let root = container.newBackgroundContext()
    root.name = "rootSavingContext"
    root.mergePolicy = .mergeByPropertyObjectTrump
    let main = root.newChildContext(concurrencyType: .mainQueue)
    main.name = "defaultContext"
    main.automaticallyMergesChangesFromParent = true
    rootSavingContext = root
    defaultContext = main
  }

  /// A new private-queue child of the root, for background work.
  public func newContext() -> ManagedObjectContext {
    let context = rootSavingContext.newChildContext()
    context.name = "localContext"
    return context
  }

  /// Runs `block` in a new local context, saves it and its parents up to the store, and returns
  /// the block's result once the store has the changes.
  public func save<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    let local = newContext()
    let result = try await local.perform {
      let result = try block(local)
      try local.save()
      return result
    }
    var next = local.parent
    while let context = next {
      try await context.perform { try context.save() }
      next = context.parent
    }
    return result
  }

  /// Runs `block` in a new local context on that context's queue and returns at once; saves up
  /// to the store afterwards, then calls `completion` on the root's queue.
  public func save(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Void,
    completion: (@Sendable (Swift.Result<Void, any Error>) -> Void)? = nil
  ) {
    let local = newContext()
    local.perform {
      do {
        try block(local)
        try local.save()
      } catch {
        completion?(.failure(error))
        return
      }
      Self.saveParents(of: local, completion: completion)
    }
  }

  /// Saves each parent of `context` in turn, each on its own queue.
  private static func saveParents(
    of context: ManagedObjectContext,
    completion: (@Sendable (Swift.Result<Void, any Error>) -> Void)?
  ) {
    guard let parent = context.parent else {
      completion?(.success(()))
      return
    }
    parent.perform {
      do {
        try parent.save()
      } catch {
        completion?(.failure(error))
        return
      }
      saveParents(of: parent, completion: completion)
    }
  }

  /// Runs `block` in a new local context and saves up to the store, blocking the calling thread
  /// until the store has the changes (MagicalRecord's `saveWithBlockAndWait:`). Not from the
  /// cooperative pool: it blocks a thread.
  public func saveAndWait(_ block: @Sendable (ManagedObjectContext) throws -> Void) throws {
    let local = newContext()
    try local.performAndWait {
      try block(local)
      try local.save()
    }
    var next = local.parent
    while let context = next {
      try context.performAndWait { try context.save() }
      next = context.parent
    }
  }
}
