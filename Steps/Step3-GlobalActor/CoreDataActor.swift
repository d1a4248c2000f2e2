/// One global actor for all Core Data work (the 2023 talk, slides 29–39). It is not the main
/// actor: the UI must not wait for the store.
///
/// A global actor isolates whatever it is applied to: a managed object or a context wrapper
/// marked `@CoreDataActor` becomes Sendable, and every use from outside needs an `await`.
@globalActor
public actor CoreDataActor {
  public static let shared = CoreDataActor()
}
