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
  // TODO: install the executor for every model actor: implement
  // `public nonisolated var unownedExecutor: UnownedSerialExecutor` here, returning
  // `modelExecutor.asUnownedSerialExecutor()`. Until then model actors run on the cooperative
  // pool, like any other actor.

  /// The actor's own context. Code on the actor may use it directly: it runs on its queue.
  public var modelContext: ManagedObjectContext {
    modelExecutor.context
  }

  /// The object with `id`, typed; nil when it is missing, deleted, of another entity or of
  /// another store. Never traps.
  public subscript<Entity: ManagedObject>(id: ManagedObjectID, as entity: Entity.Type) -> Entity? {
    // TODO: look the object up in `modelContext` with `existingObject(with:as:)`, and turn its
    // errors into nil (`try?`): a missing object is an ordinary answer here.
    nil
  }
}
