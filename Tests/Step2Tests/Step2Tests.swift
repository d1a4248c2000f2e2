import ManagedObjectCore
import Step2
import Step2Solution
import Synchronization
import Testing
import WorkshopSupport

/// What the checks use of a controller; yours and the solution share this API.
protocol Controller: Sendable {
  init(container: PersistentContainer)
  func configure(name: String) async throws
  var entityID: ManagedObjectID? { get }
  func update(_ newName: String) async throws
  func storedName() async throws -> String
  func renameAll(_ ids: [ManagedObjectID], to newName: String) async throws
}

extension Step2.CoreDataController: Controller {}
extension Step2Solution.CoreDataController: Controller {}

/// What the checks call on one implementation under test; its side is on ``ExamSubject``.
struct Step2API: Sendable {
  let make: @Sendable (PersistentContainer) -> any Controller
  /// Deletes the saved entity from a context of its own, as another part of an app would.
  let deleteEverywhere: @Sendable (PersistentContainer) async throws -> Void
  /// The temporary ID of an entity inserted, and never saved, in a context of its own.
  let unsavedID: @Sendable (PersistentContainer) async -> ManagedObjectID
  /// The permanent ID of an entity inserted and saved in a context of its own.
  let savedID: @Sendable (PersistentContainer) async throws -> ManagedObjectID
  /// The name of every saved entity of this side's `CoreDataEntity` class, by ID, read by a
  /// fresh context: the core's fetches select rows by class, and each side has its own.
  let storedRows: @Sendable (PersistentContainer) async throws -> [ManagedObjectID: String]
}

/// One implementation under test.
typealias Subject = ExamSubject<Step2API>

extension Step2API: ExamAPI {
  static var subjects: [Subject] {
    Subject.sides(
      "Step2",
      yours: Step2API(
        make: Step2.CoreDataController.init,
        deleteEverywhere: { try await deleteAll(Step2.CoreDataEntity.self, in: $0) },
        unsavedID: { await insertUnsaved(Step2.CoreDataEntity.self, in: $0) },
        savedID: { try await insertSaved(Step2.CoreDataEntity.self, in: $0) },
        storedRows: { try await rows(Step2.CoreDataEntity.self, in: $0) { $0.name } }),
      solution: Step2API(
        make: Step2Solution.CoreDataController.init,
        deleteEverywhere: { try await deleteAll(Step2Solution.CoreDataEntity.self, in: $0) },
        unsavedID: { await insertUnsaved(Step2Solution.CoreDataEntity.self, in: $0) },
        savedID: { try await insertSaved(Step2Solution.CoreDataEntity.self, in: $0) },
        storedRows: { try await rows(Step2Solution.CoreDataEntity.self, in: $0) { $0.name } }))
  }
}

extension Step2API {
  private static func insertUnsaved<Entity: ManagedObject>(
    _ entity: Entity.Type, in container: PersistentContainer
  ) async -> ManagedObjectID {
    let other = container.newBackgroundContext()
    other.name = "unsaved"
    return await other.perform { other.insertNewObject(of: entity).objectID }
  }

  private static func insertSaved<Entity: ManagedObject>(
    _ entity: Entity.Type, in container: PersistentContainer
  ) async throws -> ManagedObjectID {
    try await container.performBackgroundTask { context in
      let object = context.insertNewObject(of: entity)
      try context.save()
      return object.objectID
    }
  }

  private static func rows<Entity: ManagedObject>(
    _ entity: Entity.Type, in container: PersistentContainer,
    name: @escaping @Sendable (Entity) -> String
  ) async throws -> [ManagedObjectID: String] {
    try await container.performBackgroundTask { context in
      Dictionary(
        uniqueKeysWithValues: try context.fetch(FetchRequest<Entity>()).map {
          ($0.objectID, name($0))
        })
    }
  }

  private static func deleteAll<Entity: ManagedObject>(
    _ entity: Entity.Type, in container: PersistentContainer
  ) async throws {
    let other = container.newBackgroundContext()
    other.name = "elsewhere"
    try await other.perform {
      for object in try other.fetch(FetchRequest<Entity>()) { other.delete(object) }
      try other.save()
    }
  }
}

@Suite("Step 2 — keep the ID, refetch inside perform")
struct Step2Tests {
  static let lesson = step.lesson(
    rule: "A managed object belongs to the context that fetched or made it. Across contexts, "
      + "pass its permanent ManagedObjectID and refetch it inside the other context's perform.",
    hint: "Ask which context each object belongs to. Keep the entity's permanent ID instead of "
      + "the entity, and let update(_:) turn the ID back into an object inside its own "
      + "context's `perform`.", read: "the-rule")

  static let step = ExamStep(
    "Step2", deck: "slides/02-objectid-refetch.md",
    likelyCauseOfHang: "a perform block that never returns, or an await on work that waits for "
      + "this check")

  /// Runs a call of the controller for a check whose lesson is not that call's error: an error
  /// it throws (NotConfiguredError when no ID was kept, a lookup's PersistenceError) fails the
  /// check with the step's lesson, not as a bare error.
  static func teaching<Value>(
    _ lesson: Lesson = lesson, _ call: () async throws -> Value
  ) async throws -> Value {
    do {
      return try await call()
    } catch let failed as ExamRequirementFailed {
      throw failed
    } catch {
      try require(false, observed: "a call of the controller threw \(error)", lesson: lesson)
      throw error
    }
  }

  static let updateCheck = step.check(
    "update(_:) from fresh contexts records no violation and lands in the store", .failsOnStarter)

  @Test(
    "update(_:) from fresh contexts records no violation and lands in the store",
    arguments: Subject.all)
  func updatesLand(_ subject: Subject) async {
    await exam(subject.side, Self.updateCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step2-update")
      let controller = subject.make(container)
      try await Self.teaching { try await controller.configure(name: "first") }
      try await Self.teaching { try await controller.update("second") }
      try await Self.teaching { try await controller.update("third") }
      expectNoViolations(
        container.violations, while: "update(_:) ran twice, each time in a fresh context",
        lesson: Self.lesson)
      let stored = try await Self.teaching { try await controller.storedName() }
      expect(
        stored == "third",
        observed: "after update(\"second\") and update(\"third\") the store holds \"\(stored)\"",
        lesson: Self.step.lesson(
          rule: "A save writes the changes of its own context only. An edit made to an object of "
            + "another context is not in `moc`, so `moc.save()` has nothing to write.",
          hint: "Refetch the entity in the context that saves: existingObject(with:as:).",
          read: "the-rule"))
    }
  }

  static let concurrentCheck = step.check(
    "concurrent updates from many tasks record no violation and leave one of the names",
    .failsOnStarter)

  @Test(
    "concurrent updates from many tasks record no violation and leave one of the names",
    arguments: Subject.all)
  func concurrentUpdates(_ subject: Subject) async {
    await exam(subject.side, Self.concurrentCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step2-concurrent")
      let controller = subject.make(container)
      try await Self.teaching { try await controller.configure(name: "start") }
      let names = (0..<20).map { "name \($0)" }
      do {
        try await Self.twoUpdatesMeetBeforeSaving(controller, in: container)
        try await concurrently(names.count, "update(_:) calls") { index in
          try await controller.update(names[index])
        }
      } catch let error as PersistenceError {
        guard case .mergeConflict = error else {
          return try require(false, observed: "an update threw \(error)", lesson: Self.lesson)
        }
        try require(
          false, observed: "an update threw: \(error)",
          lesson: Self.step.lesson(
            rule: "Concurrent updates from fresh contexts conflict; a merge policy decides who "
              + "wins, and `.error` (the default) makes the later saves throw.",
            hint: "Keep `moc.mergePolicy = .mergeByPropertyObjectTrump` in update(_:).",
            read: "pitfalls"))
      } catch let failed as ExamRequirementFailed {
        throw failed
      } catch let timeout as TimeoutError {
        throw timeout
      } catch {
        try require(false, observed: "an update threw \(error)", lesson: Self.lesson)
      }
      expectNoViolations(
        container.violations, while: "update(_:) ran in \(names.count) concurrent tasks",
        lesson: Self.lesson)
      let stored = try await Self.teaching { try await controller.storedName() }
      expect(
        names.contains(stored),
        observed: "after \(names.count) concurrent updates the store holds \"\(stored)\"",
        lesson: Self.step.lesson(
          rule: "Each update refetches and saves in its own context; under "
            + ".mergeByPropertyObjectTrump the last save wins.",
          hint: "Keep `moc.mergePolicy = .mergeByPropertyObjectTrump`, and refetch inside perform.",
          read: "pitfalls"))
    }
  }

  /// Two updates that both refetched the entity before either saves: the later save finds the
  /// store changed since its fetch, and its context's merge policy decides what happens. A
  /// will-save observer holds each of the first two saves until the other arrives too (bounded:
  /// an update that saves nothing passes straight on; updates that run one at a time, in a
  /// context they share, wait out the bound, 1 s, kept short so that such an answer's run of
  /// the step stays within 3 s).
  static func twoUpdatesMeetBeforeSaving(
    _ controller: any Controller, in container: PersistentContainer
  ) async throws {
    let meeting = Barrier(parties: 2)
    let arrivals = Mutex(0)
    let token = container.addWillSaveObserver { _ in
      let isOneOfTheFirstTwo = arrivals.withLock { count in
        count += 1
        return count <= 2
      }
      if isOneOfTheFirstTwo { _ = meeting.arriveAndWait(timeout: .seconds(1) * timeScale) }
    }
    defer { container.removeSaveObserver(token) }
    try await concurrently(2, "two overlapping update(_:) calls") { index in
      try await controller.update(index == 0 ? "first" : "second")
    }
  }

  static let permanentCheck = step.check(
    "the kept ID is permanent, and any context can resolve it", .passesOnStarter)

  @Test("the kept ID is permanent, and any context can resolve it", arguments: Subject.all)
  func keptIDIsPermanent(_ subject: Subject) async {
    await exam(subject.side, Self.permanentCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step2-permanent")
      let controller = subject.make(container)
      try await controller.configure(name: "kept")
      let id = controller.entityID
      let lesson = Self.step.lesson(
        rule: "An object's ID is temporary until its context saves it (or obtains a permanent "
          + "ID); a temporary ID means nothing to any other context.",
        hint: "Read `entity.objectID` after `try moc.save()`, not before.", read: "pitfalls")
      try require(id != nil, observed: "entityID is nil after configure(name:)", lesson: lesson)
      expect(
        id?.isTemporaryID == false,
        observed: "the kept ID \(id!) is temporary", lesson: lesson)
      let stored = try await controller.storedName()
      expect(
        stored == "kept",
        observed: "a fresh context resolves the kept ID to \"\(stored)\"", lesson: lesson)
    }
  }

  static let deletedCheck = step.check(
    "updating an entity deleted elsewhere throws PersistenceError.objectDeleted", .failsOnStarter)

  @Test(
    "updating an entity deleted elsewhere throws PersistenceError.objectDeleted",
    arguments: Subject.all)
  func updateAfterDeletionThrows(_ subject: Subject) async {
    await exam(subject.side, Self.deletedCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.deletedElsewhere, subject)
    }
  }

  /// Another context deletes the entity; update(_:) must throw the lookup's error. A `try!`
  /// there ends the process, so this runs in a child process.
  static func updateDeletedElsewhere(_ subject: Subject) async throws {
    let container = PersistentContainer(name: "step2-deleted")
    let controller = subject.make(container)
    try await controller.configure(name: "doomed")
    let id = controller.entityID
    try await subject.deleteEverywhere(container)
    var thrown: (any Error)?
    do {
      try await controller.update("too late")
    } catch {
      thrown = error
    }
    let expected = id.map { PersistenceError.objectDeleted($0) }
    expect(
      (thrown as? PersistenceError) == expected,
      observed: thrown.map { "update(_:) threw \($0)" }
        ?? "update(_:) returned normally: the deletion went unnoticed",
      lesson: Self.step.lesson(
        rule: "A missing object is an error to report, not a case to skip: `try?` turns it into "
          + "a silent no-op, which is what the talk's `update(_:)` does (2023 talk, slide 24).",
        hint: "Use a lookup by ID that throws when the object is gone, and let its error "
          + "propagate: no `try?`, no quiet `return`.",
        read: "pitfalls"))
  }

  static let sendableCheck = step.check(
    "the controller keeps only Sendable state, without an unchecked escape", .failsOnStarter)

  @Test(
    "the controller keeps only Sendable state, without an unchecked escape",
    arguments: Subject.all)
  func storedStateIsSendable(_ subject: Subject) async {
    await exam(subject.side, Self.sendableCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step2-sendable")
      let controller = subject.make(container)
      try await controller.configure(name: "state")
      let lesson = Self.step.lesson(
        rule: "A managed object is not Sendable and is bound to its context's queue; its "
          + "ManagedObjectID is Sendable and can be kept anywhere.",
        hint: "Store `ManagedObjectID?` behind a `Mutex` and drop `@unchecked`: then the compiler "
          + "itself checks that the controller can be shared with any Task.", read: "you-will-need"
      )
      let bound = storedContextBoundState(of: controller)
      expect(
        bound.isEmpty,
        observed: "the controller stores \(bound.joined(separator: ", "))", lesson: lesson)
      let escapes = uncheckedEscapes(
        in: try sourceFiles(of: subject.side, folder: "Step2-ObjectIDRefetch"))
      expect(
        escapes.isEmpty,
        observed: "unchecked escapes in the source:\n  " + escapes.joined(separator: "\n  "),
        lesson: Self.step.lesson(
          rule: "`nonisolated(unsafe)` and `@unchecked Sendable` turn the compiler's Sendable "
            + "checking off: what they mark (a kept ID as much as an object) is then read and "
            + "written by every task that calls the controller, unprotected, and races.",
          hint: "Keep the ID in a `Mutex<ManagedObjectID?>` and drop the escape: then the "
            + "compiler itself checks that the controller can be shared with any Task.",
          read: "you-will-need"))
    }
  }
}
