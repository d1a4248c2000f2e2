/// One global actor for all Core Data work (2023 talk, slide 37). It is not the main actor: the
/// UI must not wait for the store.
@globalActor
public actor CoreDataActor {
  public static let shared = CoreDataActor()

  // TODO: install the shared CoreDataExecutor as this actor's executor: an actor names its
  // executor in a property that the `Actor` protocol declares, which the runtime reads before
  // it is on the actor. So the property is as public as the protocol and not isolated to the
  // actor (the compiler's first note, "@preconcurrency", is not the fix). Until then the actor
  // runs its jobs on the cooperative thread pool, like any other actor.
}
