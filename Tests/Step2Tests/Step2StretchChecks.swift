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
      try await controller.configure(name: name)
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
      let (controllers, ids) = try await Self.threeKeptIDs(subject, in: container)
      let saves = Mutex(0)
      let token = container.addSaveObserver { _ in saves.withLock { $0 += 1 } }
      try await subject.make(container).renameAll(ids, to: "batch")
      container.removeSaveObserver(token)
      expectNoViolations(
        container.violations, while: "renameAll(_:to:) renamed three entities",
        lesson: Self.batchLesson)
      let stored = await Self.storedNames(of: controllers)
      let count = saves.withLock { $0 }
      expect(
        stored == ["batch", "batch", "batch"] && count == 1,
        observed: "after renameAll([a, b, c], to: \"batch\") the store holds \(stored), "
          + "written by \(count) save(s)",
        lesson: Self.batchLesson)
      // A batch and an update that both read before either saves: the later save meets the
      // other's change, and renameAll's merge policy decides it, as update(_:)'s does.
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
            read: "concurrent-updates-and-the-merge-policy"))
      }
    }
  }

  /// renameAll and an update of one of its entities, each held at its save (a will-save
  /// observer) until the other has read too.
  static func batchMeetsAnUpdate(
    _ ids: [ManagedObjectID], _ controller: any Controller, _ subject: Subject,
    in container: PersistentContainer
  ) async throws {
    let meeting = Barrier(parties: 2)
    let arrivals = Mutex(0)
    let token = container.addWillSaveObserver { _ in
      let isOneOfTheFirstTwo = arrivals.withLock { count in
        count += 1
        return count <= 2
      }
      if isOneOfTheFirstTwo { _ = meeting.arriveAndWait(timeout: .seconds(5)) }
    }
    defer { container.removeSaveObserver(token) }
    let batch = subject.make(container)
    try await concurrently(2, "renameAll(_:to:) and update(_:) at once") { index in
      if index == 0 {
        try await batch.renameAll(ids, to: "batch again")
      } else {
        try await controller.update("updated")
      }
    }
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
    try await elsewhere.perform {
      elsewhere.delete(try elsewhere.existingObject(with: ids[1]))
      try elsewhere.save()
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
