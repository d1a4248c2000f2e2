import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// The stretch task: `renameAll(_:to:)`, IDs handed over by other parts of the app, refetched in
/// one context and saved together. The untouched starter leaves it empty.
extension Step2Tests {
  static let batchLesson = Self.step.lesson(
    rule: "IDs handed over from elsewhere are claims, not objects: refetch each one inside the "
      + "perform of the context that saves, and let a lookup that fails throw. One context, one "
      + "save: the batch lands whole or not at all.",
    hint: "Think of update(_:) for many IDs at once: where does the loop go, and where the save?",
    read: "stretch-task")

  /// Three controllers, each configured with its own entity, and their IDs.
  static func threeKeptIDs(
    _ subject: Subject, in container: PersistentContainer
  ) async throws -> (controllers: [any Controller], ids: [ManagedObjectID]) {
    var controllers: [any Controller] = []
    var ids: [ManagedObjectID] = []
    for name in ["a", "b", "c"] {
      let controller = subject.make(container)
      try await teaching { try await controller.configure(name: name) }
      controllers.append(controller)
      if let id = controller.entityID { ids.append(id) }
    }
    try require(
      ids.count == 3, observed: "entityID is nil after configure(name:)", lesson: Self.lesson)
    return (controllers, ids)
  }

  /// The names the store holds for the controllers' entities, as fresh contexts read them.
  static func storedNames(of controllers: [any Controller]) async -> [String] {
    var names: [String] = []
    for controller in controllers {
      do {
        names.append(try await controller.storedName())
      } catch {
        names.append("(\(error))")
      }
    }
    return names
  }

  static let batchCheck = step.check(
    "renameAll(_:to:) renames the entities of other controllers in one save", .stretch)

  @Test(
    "renameAll(_:to:) renames the entities of other controllers in one save",
    arguments: Subject.all)
  func renameAllInOneSave(_ subject: Subject) async {
    await exam(subject.side, Self.batchCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step2-rename-all")
      // The view context keeps every object it touches, so that work done there shows (an
      // unchanged object is otherwise let go once saved, as Core Data does).
      container.viewContext.retainsRegisteredObjects = true
      let (controllers, ids) = try await Self.threeKeptIDs(subject, in: container)
      let log = SaveLog(container)
      try await Self.teaching(Self.batchLesson) {
        try await subject.make(container).renameAll(ids, to: "batch")
      }
      log.stop()
      let view = container.viewContext
      let onTheView = await view.perform { view.registeredObjects.count }
      expectNoViolations(
        container.violations, while: "renameAll(_:to:) renamed three entities",
        lesson: Self.batchLesson)
      let stored = await Self.storedNames(of: controllers)
      let count = (all: log.saves.count, inTask: log.savesInATask.count)
      expect(
        stored == ["batch", "batch", "batch"] && count.all == 1,
        observed: "after renameAll([a, b, c], to: \"batch\") the store holds \(stored), "
          + "written by \(count.all) save(s)",
        lesson: Self.batchLesson)
      expect(
        count.inTask == 0 && onTheView == 0,
        observed: (count.inTask == 0
          ? ""
          : "renameAll(_:to:) saved \(count.inTask) time(s) "
            + Set(log.savesInATask.map(\.place)).sorted().joined(separator: " and ")
            + ", on a thread that waited blocked; ")
          + "the view context holds \(onTheView) object(s)",
        lesson: Self.step.lesson(
          rule: "A batch runs like every operation here: in a background context of its own, "
            + "awaited, so the caller's thread stays free and the UI's view context is left alone.",
          hint: "One `container.newBackgroundContext()` for the batch, and `try await "
            + "moc.perform { … }`: `performAndWait` is for synchronous code.",
          read: "stretch-task"))
      // An update saves between the batch's read and its save: the batch's save meets the
      // update's change, and renameAll's merge policy decides it, as update(_:)'s does.
      do {
        try await Self.batchMeetsAnUpdate(ids, controllers[0], subject, in: container)
      } catch let error as PersistenceError {
        guard case .mergeConflict = error else { throw error }
        expect(
          false, observed: "renameAll(_:to:) and an update(_:) saved at the same moment: \(error)",
          lesson: Self.step.lesson(
            rule: "A batch is a blind write like update(_:): it meets concurrent saves, and the "
              + "default merge policy (.error) makes it throw.",
            hint: "Give renameAll's context the merge policy update(_:) has, before its block.",
            read: "pitfalls"))
      }
    }
  }

  /// renameAll and an update of one of its entities, made to conflict: the batch, once it has
  /// read and is about to save, is held (a will-save observer) while the update reads, saves
  /// and returns; then the batch saves over a row that changed since it read it.
  static func batchMeetsAnUpdate(
    _ ids: [ManagedObjectID], _ controller: any Controller, _ subject: Subject,
    in container: PersistentContainer
  ) async throws {
    let held = Gate()
    let updated = Gate()
    let first = Mutex(true)
    let token = container.addWillSaveObserver { _ in
      let isFirst = first.withLock { isFirst in
        defer { isFirst = false }
        return isFirst
      }
      guard isFirst else { return }
      held.open()
      _ = updated.wait(timeout: .seconds(5))
    }
    defer { container.removeSaveObserver(token) }
    defer { updated.open() }
    let batch = subject.make(container)
    let done = Gate()
    let renaming = Task {
      defer { done.open() }
      try await batch.renameAll(ids, to: "batch again")
    }
    _ = await eventually { held.isOpen || done.isOpen }
    guard held.isOpen else { return try await renaming.value }
    try await withTimeout(defaultWaitTimeout, "update(_:) while renameAll(_:to:) waits") {
      try await controller.update("updated")
    }
    updated.open()
    try await withTimeout(defaultWaitTimeout, "renameAll(_:to:)") { try await renaming.value }
  }

  static let batchErrorCheck = step.check(
    "renameAll(_:to:) with a deleted or a temporary ID throws its error and renames none",
    .stretch)

  @Test(
    "renameAll(_:to:) with a deleted or a temporary ID throws its error and renames none",
    arguments: Subject.all)
  func renameAllRejectsBadIDs(_ subject: Subject) async {
    await exam(subject.side, Self.batchErrorCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.batchWithBadIDs, subject)
    }
  }

  /// A `try!` on a lookup of the batch ends the process: this runs in a child process.
  static func renameAllWithBadIDs(_ subject: Subject) async throws {
    let container = PersistentContainer(name: "step2-rename-all-errors")
    let (controllers, ids) = try await Self.threeKeptIDs(subject, in: container)
    let elsewhere = container.newBackgroundContext()
    elsewhere.name = "elsewhere"
    try await teaching {
      try await elsewhere.perform {
        elsewhere.delete(try elsewhere.existingObject(with: ids[1]))
        try elsewhere.save()
      }
    }
    let unsaved = await subject.unsavedID(container)
    let controller = subject.make(container)
    var outcomes: [String] = []
    for (batch, expected) in [
      ([ids[0], ids[1], ids[2]], PersistenceError.objectDeleted(ids[1])),
      ([ids[0], unsaved, ids[2]], PersistenceError.temporaryIDOutsideItsContext(unsaved)),
    ] {
      do {
        try await controller.renameAll(batch, to: "half done")
        outcomes.append("returned normally, expected \(expected)")
      } catch let error as PersistenceError where error == expected {
        continue
      } catch {
        outcomes.append("threw \(error), expected \(expected)")
      }
    }
    let stored = await Self.storedNames(of: [controllers[0], controllers[2]])
    expect(
      outcomes.isEmpty && stored == ["a", "c"],
      observed: "renameAll(_:to:) with a deleted ID, then with a temporary one: "
        + (outcomes.isEmpty ? "each threw its error" : outcomes.joined(separator: "; "))
        + "; the entities that still exist hold \(stored) (they were \"a\" and \"c\")",
      lesson: Self.batchLesson)
  }
}
