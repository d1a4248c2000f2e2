/// One global actor for all Core Data work (2023 talk, slide 37). It is not the main actor: the
/// UI must not wait for the store.
///
/// A global actor isolates whatever it is applied to: a context wrapper marked `@CoreDataActor`
/// becomes Sendable, and every use from outside needs an `await`. A managed object marked so is
/// isolated too, but stays non-Sendable (SE-0434): its superclass is not Sendable.
@globalActor
public actor CoreDataActor {
  public static let shared = CoreDataActor()
}
