import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// What the caller of a method is owed: the work done and its errors when the call returns, and
/// its thread free while the context works. The mistakes these catch (an unawaited `Task { … }`,
/// a `try?`, a `performAndWait` in async code) record no violation and pass the main checks.
extension Step1Tests {
  /// The context a controller keeps in a stored property (`moc`, in the starter and the
  /// solution), found by reflection: the checks make its saves fail, or watch where they run.
  static func keptContext(of controller: any Controller, lesson: Lesson) throws
    -> ManagedObjectContext
  {
    let kept = Mirror(reflecting: controller).children.lazy
      .compactMap { $0.value as? ManagedObjectContext }.first
    try require(
      kept != nil, observed: "the controller keeps no ManagedObjectContext in a stored property",
      lesson: lesson)
    return kept!
  }

  /// "threw <error>" or "returned normally", and whether the error was the read-only refusal.
  static func outcome(of call: () async throws -> Void) async -> (refused: Bool, text: String) {
    do {
      try await call()
      return (false, "returned normally")
    } catch let error as PersistenceError {
      guard case .readOnlyContext = error else { return (false, "threw \(error)") }
      return (true, "threw \(error)")
    } catch {
      return (false, "threw \(error)")
    }
  }

  static let failedSaveCheck = Self.step.check(
    "a save that fails inside configure() or rename(to:) reaches the caller", .passesOnStarter)

  /// The check makes the controller's context read-only (a thread-safe setting), so its next
  /// save must throw. A method whose work still runs after it returned (an unawaited `Task`, the
  /// fire-and-forget `perform`), or that swallows the error (`try?`), returns normally instead;
  /// a `try!` ends the process, so the scenario runs in a child process.
  @Test(
    "a save that fails inside configure() or rename(to:) reaches the caller",
    arguments: Subject.all)
  func failedSaveReachesTheCaller(_ subject: Subject) async {
    await exam(subject.side, Self.failedSaveCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.failedSave, subject)
    }
  }

  static func failedSave(_ subject: Subject) async throws {
    let lesson = Self.step.lesson(
      rule: "An async method is done when it returns: its block has run, and the block's "
        + "error reaches the caller. Work left in a `Task { … }` or a fire-and-forget "
        + "`perform` runs on after the return, and its errors go nowhere; `try?` drops them.",
      hint: "Await the context's block itself: no `Task { … }` around the work, no "
        + "fire-and-forget `perform`, no `try?` on the save.",
      read: "pitfalls")
    let container = PersistentContainer(name: "step1-failed-save")
    let fresh = subject.make(container)
    try Self.keptContext(of: fresh, lesson: lesson).isReadOnly = true
    let configured = await Self.outcome { try await fresh.configure() }

    let renamed = subject.make(container)
    try await renamed.configure()
    try Self.keptContext(of: renamed, lesson: lesson).isReadOnly = true
    let rename = await Self.outcome { try await renamed.rename(to: "never saved") }
    expect(
      configured.refused && rename.refused,
      observed: "with the controller's context read-only, so that its save throws, "
        + "configure() \(configured.text) and rename(to:) \(rename.text)",
      lesson: lesson)
  }

  static let actorKeepsIDCheck = Self.step.check(
    "the actor keeps the entity's ID, not the entity", .failsOnStarter)

  /// `nonisolated(unsafe)` on the actor's `entity` silences the compiler's error about the
  /// block, and every access may still sit inside `perform`: no violation shows. But the actor
  /// then holds a managed object outside its isolation, which is what the compiler refused.
  @Test(
    "the actor keeps the entity's ID, not the entity",
    arguments: ExamSide.selected)
  func actorKeepsTheID(_ side: ExamSide) async {
    await exam(side, Self.actorKeepsIDCheck) {
      let (_, actorSubject) = Subject.of(side)
      let controller = actorSubject.make(PersistentContainer(name: "step1-keeps-id"))
      try await controller.configure()
      let kept = storedContextBoundState(of: controller).filter {
        !$0.hasSuffix(": ManagedObjectContext")
      }
      let escapes = uncheckedEscapes(
        in: try sourceFiles(of: side, folder: "Step1-UnsafeController")
          .filter { $0.path.hasSuffix("CoreDataControllerActor.swift") })
      let lesson = Self.step.lesson(
        rule: "A managed object is not Sendable: an actor cannot hand it to a perform block, "
          + "and `nonisolated(unsafe)` only hides that from the compiler. Its ManagedObjectID "
          + "is Sendable.",
        hint: "Keep in the actor what may cross into a block (the entity's ID, not the "
          + "entity), and drop the unsafe escape: the compiler was right.",
        read: "pitfalls-22")
      expect(
        kept.isEmpty,
        observed: "after configure() the actor stores \(kept.joined(separator: ", "))",
        lesson: lesson)
      expect(
        escapes.isEmpty,
        observed: "unsafe escapes in the actor's source:\n  " + escapes.joined(separator: "\n  "),
        lesson: Self.step.lesson(
          rule: "`nonisolated(unsafe)` and `@unchecked Sendable` turn the compiler's checking "
            + "off for what they mark: the actor no longer protects it, whether it holds the "
            + "entity or its ID, and the error they silenced was right.",
          hint: "Drop the escape, and keep in the actor what may cross into a block: the "
            + "entity's ID, as a plain stored property of the actor.",
          read: "pitfalls-22"))
    }
  }
}
