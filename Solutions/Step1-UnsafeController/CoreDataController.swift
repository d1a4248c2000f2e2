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
  // The promise holds: `moc` and `entity` are only ever used inside `moc.perform`, so on the
  // context's queue, one block at a time. It is also what lets the `@Sendable` blocks below
  // reach `self.entity`: the compiler takes the promise on trust.
  private var entity: CoreDataEntity?
  private let moc: ManagedObjectContext

  public init(container: PersistentContainer) {
    moc = container.newBackgroundContext()
    moc.name = "CoreDataController.moc"
  }

  /// Inserts the entity and saves it.
  public func configure() async throws {
    // The block escapes to the context's queue, so `self` is spelled out.
    try await moc.perform {
      let entity = CoreDataEntity(context: self.moc)
      try self.moc.saveOrRollBack()
      // Kept only once saved: a configure() that fails changes nothing.
      self.entity = entity
    }
  }

  /// Renames the entity and saves it.
  public func rename(to newName: String) async throws {
    try await moc.perform {
      self.entity?.name = newName
      try self.moc.saveOrRollBack()
    }
  }

  /// The entity's name, or nil before `configure()`.
  public func name() async -> String? {
    await moc.perform { self.entity?.name }
  }

  /// Deletes the entity and saves; afterwards `name()` is nil. Before `configure()`, it does
  /// nothing.
  public func delete() async throws {
    try await moc.perform {
      guard let entity = self.entity else { return }
      self.moc.delete(entity)
      try self.moc.saveOrRollBack()
      // Saved, the object is invalidated: nobody may read it again.
      self.entity = nil
    }
  }
}

// `nonisolated`, like the classes: under an app target's default main-actor isolation (Xcode
// 26), the perform blocks could not call it.
nonisolated extension ManagedObjectContext {
  /// Saves; when the save throws, rolls back first. A failed save leaves its changes in the
  /// context, where the next save would write them: the rollback drops them, so that a call
  /// whose save failed leaves the store and the context as they were. Used by both controllers,
  /// inside `perform`.
  func saveOrRollBack() throws {
    do {
      try save()
    } catch {
      rollback()
      throw error
    }
  }
}
