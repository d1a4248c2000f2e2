import ManagedObjectCore

/// The first controller (2023 talk, slides 9–15): it keeps a context of its own and the entity
/// it made, and does its Core Data work on whatever thread happens to call it.
///
/// Two departures are the workshop's, not the talk's, whose class conforms to nothing and whose
/// `configure()` is synchronous (2023 talk, slide 9). Callers share one controller between
/// tasks, so the workshop declares it `@unchecked Sendable`: a promise to the compiler that the
/// class is safe to use from several threads. And `configure()` is `async`, so that the fix can
/// await the context's `perform`.
// The lesson, on purpose: the workshop's unchecked promise, which the compiler takes on trust and
// the confinement checker verifies (slides/01-unsafe-controller.md#the-rule).
nonisolated public final class CoreDataController: @unchecked Sendable {
  // TODO: the promise above is broken: `moc` and `entity` are used on the caller's thread.
  // It holds once every use of them runs inside `moc.perform`, on the context's queue.
  private var entity: CoreDataEntity?
  private let moc: ManagedObjectContext

  public init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
    moc.name = "CoreDataController.moc"
  }

  /// Inserts the entity and saves it.
  public func configure() async throws {
    // TODO: the insert and its save belong on the context's queue, in one block that this
    // method awaits, so that it is done (or has thrown) when it returns. A save that throws
    // leaves its changes in the context, where the next save would write them: in every method
    // that saves, roll the context back before the error goes on, and keep the new entity only
    // once its save has returned.
    entity = CoreDataEntity(context: moc)
    try moc.save()
  }

  /// Renames the entity and saves it.
  public func rename(to newName: String) async throws {
    // TODO: touch `entity` and `moc` inside `perform` only.
    entity?.name = newName
    try moc.save()
  }

  /// The entity's name, or nil before `configure()`.
  public func name() async -> String? {
    // TODO: read the attribute inside `perform` too: a read is an access.
    entity?.name
  }

  /// Deletes the entity and saves; afterwards `name()` is nil. Before `configure()`, it does
  /// nothing.
  public func delete() async throws {
    // TODO: stretch — write it by the same rule: the delete and its save in one awaited block on
    // the context's queue, and the kept entity forgotten there too (a deleted object must not
    // be read again).
    // The call below tells the checks you have not started: delete it when you do.
    StretchTask.notStarted()
  }
}
