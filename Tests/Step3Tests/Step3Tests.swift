import ManagedObjectCore
import Step3
import Step3Solution
import Testing
import WorkshopSupport

/// What the runtime checks use of the controller; yours and the solution share this API.
protocol Controller: AnyObject {
  func configure(name: String) async throws
  func rename(to newName: String) async throws
  func name() async -> String?
  func delete() async throws
  func adopt(_ id: ManagedObjectID) async throws
  /// `snapshot()`, as values both sides share.
  func snapshotValues() async -> EntitySnapshotValues?
  /// `savedEntities(prefix:)`, as values both sides share.
  func savedEntityValues(prefix: String) async throws -> [EntitySnapshotValues]
}

/// A side's `EntitySnapshot`, as both sides' checks compare it.
struct EntitySnapshotValues: Sendable, Hashable {
  let id: ManagedObjectID
  let name: String
}

extension Step3.CoreDataController {
  func snapshotValues() async -> EntitySnapshotValues? {
    await snapshot().map { EntitySnapshotValues(id: $0.id, name: $0.name) }
  }

  func savedEntityValues(prefix: String) async throws -> [EntitySnapshotValues] {
    try await savedEntities(prefix: prefix).map { EntitySnapshotValues(id: $0.id, name: $0.name) }
  }
}

extension Step3Solution.CoreDataController {
  func snapshotValues() async -> EntitySnapshotValues? {
    await snapshot().map { EntitySnapshotValues(id: $0.id, name: $0.name) }
  }

  func savedEntityValues(prefix: String) async throws -> [EntitySnapshotValues] {
    try await savedEntities(prefix: prefix).map { EntitySnapshotValues(id: $0.id, name: $0.name) }
  }
}

extension Step3.CoreDataController: Controller {}
extension Step3Solution.CoreDataController: Controller {}

/// What the checks call on one side: its controller, and its one shared container.
struct Step3API: Sendable {
  let makeController: @Sendable () -> any Controller
  let container: @Sendable () -> PersistentContainer
  /// The names of the saved entities, from a fresh context, without touching an entity.
  let storedNames: @Sendable () async throws -> [String]
  /// The IDs and names of the saved entities, from a fresh context, in store order.
  let storedRows: @Sendable () async throws -> [StoredRow]
  /// The actor's one context (``reflectedContext(of:)``).
  let actorContext: @Sendable () throws -> ManagedObjectContext
  /// Deletes the saved entities whose names start with the prefix, from a fresh context.
  let deleteRows: @Sendable (String) async throws -> Void
}

/// A saved row: its ID and its name.
struct StoredRow: Sendable {
  let id: ManagedObjectID
  let name: String
}

/// The IDs and names of every saved `Entity` (a side's `CoreDataEntity`), read by a fresh
/// context as IDs and dictionaries: the entity's `name` belongs to CoreDataActor.
func storedEntityRows<Entity: ManagedObject>(of _: Entity.Type, in container: PersistentContainer)
  async throws -> [StoredRow]
{
  try await container.performBackgroundTask { context in
    let request = FetchRequest<Entity>()
    let ids = try context.fetchObjectIDs(request)
    request.propertiesToFetch = [.attribute("name")]
    let names = try context.fetchDictionaries(request).map { $0["name"] as? String ?? "" }
    return zip(ids, names).map { StoredRow(id: $0, name: $1) }
  }
}

/// Deletes every saved `Entity` whose name starts with `prefix`, from a fresh context.
func deleteEntityRows<Entity: ManagedObject>(
  of entity: Entity.Type, prefix: String, in container: PersistentContainer
) async throws {
  let rows = try await storedEntityRows(of: entity, in: container)
    .filter { $0.name.hasPrefix(prefix) }
  guard !rows.isEmpty else { return }
  try await container.performBackgroundTask { context in
    for row in rows { context.delete(try context.existingObject(with: row.id)) }
    try context.save()
  }
}

/// The context a side's `ContextContainer` keeps, read by reflection: the container's
/// `context` is internal, and the histories make it read-only (a thread-safe setting) and save
/// it inside its `perform` after a program, never more. Reflection needs no isolation, so this
/// compiles whichever actor, if any, the attendee gave the wrapper.
func reflectedContext(of container: Any) throws -> ManagedObjectContext {
  let context =
    Mirror(reflecting: container).children
    .first { $0.label == "context" }?.value as? ManagedObjectContext
  guard let context else { throw NoActorContext() }
  return context
}

/// The side's `ContextContainer` keeps no context named `context`.
struct NoActorContext: Error {}

/// One side under test: its module, its controller, and its one shared container.
typealias Subject = ExamSubject<Step3API>

extension Step3API: ExamAPI {
  static var subjects: [Subject] {
    Subject.sides(
      "Step3",
      yours: Step3API(
        makeController: { Step3.CoreDataController() },
        container: { Step3.ContextContainer.shared.persistentContainer },
        storedNames: {
          try await WorkshopSupport.storedNames(
            of: Step3.CoreDataEntity.self, in: Step3.ContextContainer.shared.persistentContainer)
        },
        storedRows: {
          try await storedEntityRows(
            of: Step3.CoreDataEntity.self, in: Step3.ContextContainer.shared.persistentContainer)
        },
        actorContext: { try reflectedContext(of: Step3.ContextContainer.shared) },
        deleteRows: {
          try await deleteEntityRows(
            of: Step3.CoreDataEntity.self, prefix: $0,
            in: Step3.ContextContainer.shared.persistentContainer)
        }),
      solution: Step3API(
        makeController: { Step3Solution.CoreDataController() },
        container: { Step3Solution.ContextContainer.shared.persistentContainer },
        storedNames: {
          try await WorkshopSupport.storedNames(
            of: Step3Solution.CoreDataEntity.self,
            in: Step3Solution.ContextContainer.shared.persistentContainer)
        },
        storedRows: {
          try await storedEntityRows(
            of: Step3Solution.CoreDataEntity.self,
            in: Step3Solution.ContextContainer.shared.persistentContainer)
        },
        actorContext: { try reflectedContext(of: Step3Solution.ContextContainer.shared) },
        deleteRows: {
          try await deleteEntityRows(
            of: Step3Solution.CoreDataEntity.self, prefix: $0,
            in: Step3Solution.ContextContainer.shared.persistentContainer)
        }))
  }
}

/// Each side has one global actor and one container for the whole process, so these checks run
/// one at a time, and each starts by forgetting earlier violations.
@Suite("Step 3 — a global actor for managed objects", .serialized)
struct Step3Tests {
  static let step = ExamStep(
    "Step3", deck: "slides/03-global-actor.md",
    likelyCauseOfHang: "an await on CoreDataActor that never resumes")

  /// Configure, rename, read, delete: the talk's last controller keeps its entity on the actor
  /// and has `configure()` only (2023 talk, slides 68–69); the other methods are the workshop's.
  private static func lifeOfAnEntity(
    _ subject: Subject, named name: String
  ) async throws -> (renamed: String?, storedAfterRename: [String], storedAfterDelete: [String]) {
    let controller = subject.makeController()
    try await controller.configure(name: name)
    try await controller.rename(to: name + " renamed")
    let renamed = await controller.name()
    let afterRename = try await storedNames(subject, prefix: name)
    try await controller.delete()
    return (renamed, afterRename, try await storedNames(subject, prefix: name))
  }

  private static func storedNames(_ subject: Subject, prefix: String) async throws -> [String] {
    try await subject.storedNames().filter { $0.hasPrefix(prefix) }.sorted()
  }

  static let crudCheck = Self.step.check(
    "create, read, update and delete through the actor give the right data", .passesOnStarter)

  @Test(
    "create, read, update and delete through the actor give the right data",
    arguments: Subject.all)
  func crudThroughTheActor(_ subject: Subject) async {
    await exam(subject.side, Self.crudCheck) {
      let name = "crud \(subject.side)"
      let life = try await Self.lifeOfAnEntity(subject, named: name)
      expect(
        life.renamed == name + " renamed" && life.storedAfterRename == [name + " renamed"]
          && life.storedAfterDelete.isEmpty,
        observed: "name() after rename: \(String(describing: life.renamed)); stored after rename: "
          + "\(life.storedAfterRename); stored after delete: \(life.storedAfterDelete)",
        lesson: Self.step.lesson(
          rule: "Isolating the controller, the wrapper and the entity to CoreDataActor changes "
            + "where code may run, not what it does.",
          hint: "Keep the bodies of configure, rename, name and delete as the starter has them: "
            + "only where they run changes.", read: "the-rule"))
    }
  }

  static let queueCheck = Self.step.check(
    "the actor's jobs run on the context's queue",
    .knownGap("a global actor runs on the cooperative pool; step 4 fixes it"))

  @Test(
    "the actor's jobs run on the context's queue",
    arguments: Subject.all)
  func jobsRunOnTheContextsQueue(_ subject: Subject) async {
    await exam(subject.side, Self.queueCheck) {
      subject.container().removeAllViolations()
      _ = try await Self.lifeOfAnEntity(subject, named: "queue \(subject.side)")
      expectNoViolations(
        subject.container().removeAllViolations(),
        while: "the controller configured, renamed, read and deleted its entity on CoreDataActor",
        lesson: Self.step.lesson(
          rule: "A global actor guarantees one job at a time, but its jobs run on the cooperative "
            + "thread pool, not on the context's queue.",
          hint: "Nothing to change in step 3: step 4 gives CoreDataActor an executor that runs "
            + "every job inside the context's perform.", read: "the-gap"))
    }
  }
}

/// The compile-time half of the lesson: each probe in `Tests/Step3Tests/Probes`, compiled
/// against your side (and the solution's in verify mode). They compile in parallel.
@Suite("Step 3 — what the compiler checks")
struct Step3ProbeTests {
  /// The first three are what isolating the types buys, so the starter fails them. The others
  /// hold on both sides: they are the facts the lesson (SE-0434) and its stretch task stand on.
  static func probe(
    _ name: String, _ subject: Subject, starter: StarterOutcome = .passesOnStarter
  ) async {
    await examProbe(
      name, in: "Tests/Step3Tests/Probes", against: subject.module, side: subject.side,
      step: Step3Tests.step, starter: starter, lesson: lesson)
  }

  @Test(
    "probe SetterNeedsTheActor: setting name from a nonisolated function does not compile",
    arguments: Subject.all)
  func setterNeedsTheActor(_ subject: Subject) async {
    await Self.probe("SetterNeedsTheActor", subject, starter: .failsOnStarter)
  }

  @Test(
    "probe SaveNeedsAwait: calling save() from outside without await does not compile",
    arguments: Subject.all)
  func saveNeedsAwait(_ subject: Subject) async {
    await Self.probe("SaveNeedsAwait", subject, starter: .failsOnStarter)
  }

  @Test(
    "probe FetchRequestStaysInside: a fetch request built outside cannot be shared with the actor",
    arguments: Subject.all)
  func fetchRequestStaysInside(_ subject: Subject) async {
    await Self.probe("FetchRequestStaysInside", subject, starter: .failsOnStarter)
  }

  @Test(
    "probe EntityStaysOnTheActor: an entity made on CoreDataActor cannot be handed to another actor",
    arguments: Subject.all)
  func entityStaysOnTheActor(_ subject: Subject) async {
    await Self.probe("EntityStaysOnTheActor", subject)
  }

  @Test(
    "probe IDAndValuesCrossActors: the entity's objectID and values cross to another actor",
    arguments: Subject.all)
  func idAndValuesCrossActors(_ subject: Subject) async {
    await Self.probe("IDAndValuesCrossActors", subject)
  }

  @Test(
    "probe SendableEntityIsDiagnosed: declaring an isolated entity Sendable draws a warning",
    arguments: Subject.all)
  func sendableEntityIsDiagnosed(_ subject: Subject) async {
    await Self.probe("SendableEntityIsDiagnosed", subject)
  }

  @Test(
    "probe PredicateKeyPathsStayOnTheActor: #Predicate and SortDescriptor on an isolated entity do not compile",
    arguments: Subject.all)
  func predicateKeyPathsStayOnTheActor(_ subject: Subject) async {
    await Self.probe("PredicateKeyPathsStayOnTheActor", subject)
  }

  static let lesson = Step3Tests.step.lesson(
    rule: "Isolating the entity and the context wrapper to a global actor makes the compiler "
      + "check every use: setters only on the actor, calls from outside only with await, "
      + "non-Sendable values (a fetch request, the entity itself) only inside. The entity stays "
      + "non-Sendable (SE-0434): its objectID and its values cross actors, the object does not.",
    hint: "Isolate the entity, the context wrapper and the controller to the global actor, one "
      + "attribute each, and do not declare the entity Sendable.", read: "the-rule")
}
