import ManagedObjectCore

/// An actor that owns one background context and runs every job on that context's queue:
/// SwiftData's `ModelActor`, and the article's `NSModelActor`, retold.
///
/// Where steps 3–4 put every object behind one global actor, each model actor here is a small
/// island: its own context, its own executor, its own queue. Two model actors run side by side.
public protocol ModelActor: Actor {
  /// The container the actor's context belongs to.
  nonisolated var modelContainer: PersistentContainer { get }
  /// The executor that runs the actor's jobs on its context's queue.
  nonisolated var modelExecutor: ModelActorExecutor { get }
}

extension ModelActor {
  // TODO: install each model actor's own executor, here, for every model actor at once: answer
  // the `Actor` protocol's `unownedExecutor` requirement with the executor that this instance
  // keeps in `modelExecutor`, never a new or a shared one. The runtime asks for it from any
  // thread, before it is on the actor, so it is public and not isolated to the actor (the
  // errors then point at `DataHandler`, the type that conforms). Until then model actors are
  // default actors, run on the cooperative pool.

  /// The actor's own context. Code on the actor may use it directly: it runs on its queue.
  public var modelContext: ManagedObjectContext {
    modelExecutor.context
  }

  /// The object with `id`, typed; nil when it is missing, deleted, of another entity or of
  /// another store. Never traps.
  public subscript<Entity: ManagedObject>(id: ManagedObjectID, as entity: Entity.Type) -> Entity? {
    // TODO: look the object up in this actor's own context, typed as `entity`. Every failure (a
    // deleted or missing object, another entity, another store) is an ordinary answer here:
    // nil, never an error and never a trap.
    nil
  }
}
