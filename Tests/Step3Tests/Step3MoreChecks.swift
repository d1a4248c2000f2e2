import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// What the CRUD check cannot see: a save that comes one method late, a deleted object that is
/// kept, a declaration whose only trace is a compiler warning.
extension Step3Tests {
  static let savedWhenReturnedCheck = Self.step.check(
    "configure(name:) saves the named entity before it returns, and delete() forgets it",
    .passesOnStarter)

  /// The store is read right after `configure(name:)` returns, before any later save could
  /// cover for a missing one; after `delete()`, the controller must hold nothing.
  @Test(
    "configure(name:) saves the named entity before it returns, and delete() forgets it",
    arguments: Subject.all)
  func savedWhenReturned(_ subject: Subject) async {
    await exam(subject.side, Self.savedWhenReturnedCheck) {
      let name = "saved \(subject.side)"
      let controller = subject.makeController()
      try await controller.configure(name: name)
      let afterConfigure = try await subject.storedNames().filter { $0.hasPrefix(name) }
      try await controller.delete()
      let kept = await controller.name()
      let afterDelete = try await subject.storedNames().filter { $0.hasPrefix(name) }
      expect(
        afterConfigure == [name] && kept == nil && afterDelete.isEmpty,
        observed: "stored right after configure(name:): \(afterConfigure); name() after "
          + "delete(): \(String(describing: kept)); stored after delete(): \(afterDelete)",
        lesson: Self.step.lesson(
          rule: "Each method finishes its own work before it returns: configure(name:) saves "
            + "the entity with its name, and delete() saves the deletion and forgets the object.",
          hint: "In configure(name:), set `name` before `save()`; in delete(), save and then set "
            + "`self.entity = nil`. Keep the solution's method bodies: only the attributes change.",
          read: "the-fix"))
    }
  }
}

extension Step3ProbeTests {
  static let noWarningCheck = Step3Tests.step.check(
    "your step's files compile without a warning", .passesOnStarter,
    likelyCauseOfHang: "a compiler that does not finish")

  /// The step's own files, compiled again on their own: a warning there is a lesson the compiler
  /// gave, such as the one an isolated entity declared `Sendable` draws.
  @Test("your step's files compile without a warning", arguments: Subject.all)
  func compilesWithoutWarning(_ subject: Subject) async {
    await exam(subject.side, Self.noWarningCheck) {
      let folder = "\(subject.side == .yours ? "Steps" : "Solutions")/Step3-GlobalActor"
      let files = try Repository.names(in: folder, ending: ".swift")
        .map { Repository.url("\(folder)/\($0)").path }
      let output = try await Toolchain.run(
        try Toolchain.swiftc(),
        [
          "-emit-sil", "-wmo", "-o", "/dev/null", "-swift-version", "6", "-parse-as-library",
          "-module-name", "WarningCheck", "-I", try Toolchain.modulesDirectory().path,
        ] + files)
      let root = Repository.root.path + "/"
      let warnings = output.standardError.split(separator: "\n").map(String.init)
        .filter { $0.hasPrefix("/") && $0.contains(": warning: ") }
        .map { $0.replacingOccurrences(of: root, with: "") }
      try require(
        output.status == 0,
        observed: "the step's files did not compile on their own:\n"
          + output.standardError, lesson: Self.warningLesson)
      expect(
        warnings.isEmpty,
        observed: "the compiler warned:\n    " + warnings.joined(separator: "\n    "),
        lesson: Self.warningLesson)
    }
  }

  static let warningLesson = Step3Tests.step.lesson(
    rule: "A warning in this step is part of the lesson: an entity isolated to CoreDataActor and "
      + "declared Sendable draws \"conformance … to protocol 'Sendable' is already unavailable\", "
      + "because ManagedObject is not Sendable, and neither is a subclass of it (SE-0434). The "
      + "declaration has no effect.",
    hint: "Remove `, Sendable` from CoreDataEntity: the entity stays on the actor, and its "
      + "objectID and values cross. Fix any other warning the compiler shows.",
    read: "the-talks-sendable-entity")
}
