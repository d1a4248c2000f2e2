import ManagedObjectCore
import Step1
import Step1Solution
import Testing
import WorkshopSupport

/// What the checks use of a controller. Both shapes (class and actor), on both sides (yours and
/// the solution), share this API, so every check is written once.
protocol Controller: Sendable {
  init(container: PersistentContainer)
  func configure() async throws
  func rename(to newName: String) async throws
  func name() async -> String?
  func delete() async throws
}

/// The entity, whichever side declared it.
protocol NamedEntity: ManagedObject {
  var name: String { get }
}

extension Step1.CoreDataEntity: NamedEntity {}
extension Step1Solution.CoreDataEntity: NamedEntity {}

extension Step1.CoreDataController: Controller {}
extension Step1.CoreDataControllerActor: Controller {}
extension Step1Solution.CoreDataController: Controller {}
extension Step1Solution.CoreDataControllerActor: Controller {}

/// What the checks call on one implementation under test. Its side and shape ("class" or
/// "actor", the subject's `variant`) are on ``ExamSubject``.
struct Step1API: Sendable {
  let make: @Sendable (PersistentContainer) -> any Controller
  let entity: any NamedEntity.Type
}

/// One implementation under test: a side and a shape.
typealias Subject = ExamSubject<Step1API>

extension Step1API: ExamAPI {
  /// Both shapes on both sides.
  static var subjects: [Subject] {
    [
      Subject(
        side: .yours, shape: "class", make: Step1.CoreDataController.init,
        entity: Step1.CoreDataEntity.self),
      Subject(
        side: .yours, shape: "actor", make: Step1.CoreDataControllerActor.init,
        entity: Step1.CoreDataEntity.self),
      Subject(
        side: .solution, shape: "class", make: Step1Solution.CoreDataController.init,
        entity: Step1Solution.CoreDataEntity.self),
      Subject(
        side: .solution, shape: "actor", make: Step1Solution.CoreDataControllerActor.init,
        entity: Step1Solution.CoreDataEntity.self),
    ]
  }
}

extension ExamSubject where API == Step1API {
  /// The names of the saved entities, as a fresh context fetches them.
  func storedNames(in container: PersistentContainer) async throws -> [String] {
    func fetch<Entity: NamedEntity>(_ entity: Entity.Type) async throws -> [String] {
      let fresh = container.newBackgroundContext()
      return try await fresh.perform { try fresh.fetch(FetchRequest<Entity>()).map(\.name) }
    }
    return try await fetch(self.entity)
  }

  /// One shape on one side, as `subjects` writes each of the four.
  init(
    side: ExamSide, shape: String,
    make: @escaping @Sendable (PersistentContainer) -> any Controller,
    entity: any NamedEntity.Type
  ) {
    self.init(
      side, module: side == .yours ? "Step1" : "Step1Solution", variant: shape,
      api: Step1API(make: make, entity: entity))
  }

  static func of(_ side: ExamSide) -> (class: Subject, actor: Subject) {
    let subjects = all.filter { $0.side == side }
    return (subjects.first { $0.variant == "class" }!, subjects.first { $0.variant == "actor" }!)
  }
}

@Suite("Step 1 — the unsafe controller")
struct Step1Tests {
  static let lesson = step.lesson(
    rule: "A context and its managed objects may only be used inside that context's perform "
      + "block. An actor guarantees that one job runs at a time, not on which thread.",
    hint: "Find every line that touches `moc` or `entity` outside a `perform` block of `moc`: "
      + "each belongs inside one, awaited. In the actor, the block runs on the context's queue, "
      + "not on the actor.", read: "the-rule")

  static let step = ExamStep(
    "Step1", deck: "slides/01-unsafe-controller.md",
    likelyCauseOfHang: "a perform block that waits for something only its own queue could do, or "
      + "a performAndWait on a context from inside that context's own block on another thread")

  static let concurrentCallers = 20

  /// Configures one controller per task, all at once, all sharing `container`.
  private static func configureConcurrently(
    _ subject: Subject, in container: PersistentContainer
  ) async throws {
    let controllers = (0..<concurrentCallers).map { _ in subject.make(container) }
    try await concurrently(controllers.count, "configure() calls") { index in
      try await controllers[index].configure()
    }
  }

  static let configureCheck = Self.step.check(
    "configure() from many concurrent tasks records no violation", .failsOnStarter)

  @Test("configure() from many concurrent tasks records no violation", arguments: Subject.all)
  func configureFromManyTasks(_ subject: Subject) async {
    await exam(subject.side, Self.configureCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step1-configure")
      try await Self.configureConcurrently(subject, in: container)
      expectNoViolations(
        container.violations,
        while: "configure() ran in \(Self.concurrentCallers) concurrent tasks",
        lesson: Self.lesson)
    }
  }

  static let savedCheck = Self.step.check(
    "the configured entities are in the store: a fresh context fetches them", .passesOnStarter)

  @Test(
    "the configured entities are in the store: a fresh context fetches them",
    arguments: Subject.all)
  func configuredEntitiesAreSaved(_ subject: Subject) async {
    await exam(subject.side, Self.savedCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step1-saved")
      try await Self.configureConcurrently(subject, in: container)
      let count = try await subject.storedNames(in: container).count
      expect(
        count == Self.concurrentCallers,
        observed: "a fresh context counts \(count) saved entities after "
          + "\(Self.concurrentCallers) configure() calls",
        lesson: Self.step.lesson(
          rule: "configure() inserts one entity and saves it; a save is what makes it visible to "
            + "other contexts.",
          hint: "Look for the save on the way into the block: the insert alone is not enough.",
          read: "pitfalls"))
    }
  }

  static let renameCheck = Self.step.check(
    "rename(to:) from many tasks records no violation and leaves one of the names", .failsOnStarter)

  @Test(
    "rename(to:) from many tasks records no violation and leaves one of the names",
    arguments: Subject.all)
  func renameFromManyTasks(_ subject: Subject) async {
    await exam(subject.side, Self.renameCheck, subject: subject.testDescription) {
      let container = PersistentContainer(name: "step1-rename")
      let controller = subject.make(container)
      try await controller.configure()
      let names = (0..<Self.concurrentCallers).map { "name \($0)" }
      // Each task reads the name back too: `name()` touches the entity, so it needs perform.
      try await concurrently(names.count, "rename(to:) and name() calls") { index in
        try await controller.rename(to: names[index])
        _ = await controller.name()
      }
      expectNoViolations(
        container.violations,
        while: "rename(to:) and name() ran in \(names.count) concurrent tasks",
        lesson: Self.lesson)
      let stored = try await subject.storedNames(in: container)
      let reported = await controller.name()
      expect(
        stored.count == 1 && names.contains(stored[0]) && reported == stored[0],
        observed:
          "the store holds \(stored), the controller reports \(String(describing: reported))"
          + "; the names given were \"name 0\" … \"name \(names.count - 1)\"",
        lesson: Self.step.lesson(
          rule:
            "Renames that each run whole inside perform are serialized: the last one saved wins, "
            + "and the controller and the store agree.",
          hint: "Rename and save in one perform block, so no other rename slips in between.",
          read: "pitfalls"))
    }
  }

  static let twinCheck = Self.step.check(
    "the actor twin records exactly the same violations as the class", .passesOnStarter)

  @Test(
    "the actor twin records exactly the same violations as the class",
    arguments: ExamSide.selected)
  func actorTwinMatchesTheClass(_ side: ExamSide) async {
    await exam(side, Self.twinCheck) {
      func signature(_ subject: Subject) async throws -> Set<String> {
        let container = PersistentContainer(name: "step1-twin")
        let controller = subject.make(container)
        try await controller.configure()
        try await controller.rename(to: "twin")
        _ = await controller.name()
        return Set(
          container.violations.map {
            "\($0.kind) \($0.subject)"
          })
      }
      let (classSubject, actorSubject) = Subject.of(side)
      let ofClass = try await signature(classSubject)
      let ofActor = try await signature(actorSubject)
      expect(
        ofClass == ofActor,
        observed: "the class recorded \(ofClass.sorted()), the actor \(ofActor.sorted())",
        lesson: Self.step.lesson(
          rule: "Turning the class into an actor changes nothing for Core Data: the actor's jobs "
            + "still run off the context's queue.",
          hint: "Fix both the same way: every context and object access inside `moc.perform`.",
          read: "the-actor-twin"))
    }
  }
}
