/// One global actor for all Core Data work (2023 talk, slide 37). It is not the main actor: the
/// UI must not wait for the store.
@globalActor
public actor CoreDataActor {
  public static let shared = CoreDataActor()

  /// Every job of this actor runs where `CoreDataExecutor.shared` puts it: inside the context's
  /// `perform` (2023 talk, slide 53), so on the context's queue.
  public nonisolated var unownedExecutor: UnownedSerialExecutor {
    CoreDataExecutor.shared.asUnownedSerialExecutor()
  }
}
