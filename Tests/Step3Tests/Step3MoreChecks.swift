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
            + "`self.entity = nil`. Keep the starter's bodies of these methods.",
          read: "the-rule"))
    }
  }

  static let handOverCheck = Self.step.check(
    "the entity crosses to another controller as its ID and name, and is found again there",
    .failsOnStarter)

  static let handOverLesson = Self.step.lesson(
    rule: "A managed object never leaves its actor. What crosses is its permanent ID and its "
      + "values, all Sendable; the other side looks the object up again by its ID, on the actor.",
    hint: "snapshot() builds the Sendable value from the entity the controller keeps; adopt(_:) "
      + "asks the context wrapper for the entity an ID names, and keeps that.",
    read: "handing-an-entity-over")

  /// One controller makes and saves an entity and hands out its snapshot; a second controller
  /// adopts it by ID, renames and deletes it. One context: both see the same object.
  @Test(
    "the entity crosses to another controller as its ID and name, and is found again there",
    arguments: Subject.all)
  func entityCrossesAsIDAndName(_ subject: Subject) async {
    await exam(subject.side, Self.handOverCheck) {
      let name = "handed over \(subject.side)"
      let maker = subject.makeController()
      try await maker.configure(name: name)
      let snapshot = await maker.snapshotValues()
      guard let snapshot, snapshot.name == name else {
        try await maker.delete()
        try require(
          false,
          observed: "snapshot() after configure(name: \"\(name)\") returned "
            + String(describing: snapshot), lesson: Self.handOverLesson)
        return
      }
      let taker = subject.makeController()
      do {
        try await taker.adopt(snapshot.id)
      } catch {
        try await maker.delete()
        try require(
          false, observed: "adopt(_:) with the snapshot's ID threw \(error)",
          lesson: Self.handOverLesson)
      }
      let adopted = await taker.name()
      try await taker.rename(to: name + " renamed")
      let seenByMaker = await maker.name()
      let stored = try await subject.storedNames().filter { $0.hasPrefix(name) }
      try await taker.delete()
      try await maker.delete()
      let afterDelete = await taker.snapshotValues()
      expect(
        adopted == name && seenByMaker == name + " renamed" && stored == [name + " renamed"]
          && afterDelete == nil,
        observed: "after adopt(_:), name() read \(String(describing: adopted)); after its rename, "
          + "the first controller read \(String(describing: seenByMaker)) and the store held "
          + "\(stored); snapshot() after delete(): \(String(describing: afterDelete))",
        lesson: Self.handOverLesson)
    }
  }

  static let savedEntitiesCheck = Self.step.check(
    "savedEntities(prefix:) hands out the saved entities as snapshots, sorted by name", .stretch)

  /// The stretch task: a list crosses the boundary as one entity does, as IDs and values.
  @Test(
    "savedEntities(prefix:) hands out the saved entities as snapshots, sorted by name",
    arguments: Subject.all)
  func savedEntitiesAsSnapshots(_ subject: Subject) async {
    await exam(subject.side, Self.savedEntitiesCheck) {
      let prefix = "listed \(subject.side) "
      let names = ["c", "a", "b"].map { prefix + $0 }
      // Has the prefix inside, not at the start: `contains` would list it.
      let other = "not " + prefix + "d"
      var made: [any Controller] = []
      for name in names + [other] {
        let controller = subject.makeController()
        try await controller.configure(name: name)
        made.append(controller)
      }
      let listed = try await subject.makeController().savedEntityValues(prefix: prefix)
      var found: [String?] = []
      for snapshot in listed {
        let reader = subject.makeController()
        try? await reader.adopt(snapshot.id)
        found.append(await reader.name())
      }
      for controller in made { try await controller.delete() }
      expect(
        listed.map(\.name) == names.sorted() && found == listed.map(\.name),
        observed: "savedEntities(prefix: \"\(prefix)\") returned \(listed.map(\.name)) for the "
          + "saved \(names + [other]); their IDs led to \(found)",
        lesson: Self.step.lesson(
          rule: "A list crosses the actor boundary as one entity does: fetched on the actor, "
            + "with a request built there, and handed out as IDs and values.",
          hint: "Build the request inside savedEntities(prefix:), keep the entities whose name "
            + "starts with the prefix (hasPrefix, not contains), sort them by name, and turn "
            + "each into a snapshot before returning.",
          read: "stretch-task"))
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
    guard builtModulesAreReady(for: Self.noWarningCheck, label: subject.side.rawValue) else {
      return
    }
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
      + "declared Sendable draws \"conformance … to protocol 'Sendable' is already unavailable\" "
      + "(Swift 6.3; Swift 6.4 says \"… inherits an unavailable 'Sendable' conformance\"), "
      + "because ManagedObject is not Sendable, and neither is a subclass of it (SE-0434). The "
      + "declaration has no effect.",
    hint: "Remove `, Sendable` from CoreDataEntity: the entity stays on the actor, and its "
      + "objectID and values cross. Fix any other warning the compiler shows.",
    read: "the-talks-sendable-entity")
}
