import ManagedObjectCore

/// The main-queue counterpart for UI-facing code, bound to the view context.
///
/// A custom executor that runs on the main queue would be the main actor all over again, so
/// this is simply a `@MainActor` type: the main actor's jobs run on the main queue, which is the
/// view context's queue. It merges what the model actors save.
@MainActor
public final class MainDataHandler {
  public let modelContainer: PersistentContainer

  public init(modelContainer: PersistentContainer) {
    self.modelContainer = modelContainer
    modelContainer.viewContext.automaticallyMergesChangesFromParent = true
  }

  public var modelContext: ManagedObjectContext { modelContainer.viewContext }

  /// The text of the note with `id`, as the view context sees it.
  public func text(of id: ManagedObjectID) -> String? {
    (try? modelContext.existingObject(with: id, as: Note.self))?.text
  }
}
