import Foundation
import ManagedObjectCore
import Step3
import Step3Solution
import Testing
import WorkshopSupport

/// adopt(_:) with IDs that did not come from this actor's own work: a row another context saved,
/// which the actor's context has never seen, and a row deleted meanwhile.
extension Step3Tests {
  static let adoptCheck = Self.step.check(
    "adopt(_:) finds an entity another context saved, and throws for one deleted",
    .failsOnStarter)

  static let adoptLesson = Self.step.lesson(
    rule: "An ID is a claim on a row, wherever it was made: the lookup goes to the store when "
      + "the context has not seen the row, and a row that is gone is an error for the caller.",
    hint: "In the wrapper, ask the context for the existing object (registered or from the "
      + "store), not only for the registered one; in adopt(_:), write `try` and let the error "
      + "through: no `try?`.", read: "handing-an-entity-over")

  /// A lookup by ID that stops the program on a gone row (`object(with:)`, a `try!`) would end
  /// the run: the scenario runs in a child process.
  @Test(
    "adopt(_:) finds an entity another context saved, and throws for one deleted",
    arguments: Subject.all)
  func adoptFindsAndRefuses(_ subject: Subject) async {
    await exam(subject.side, Self.adoptCheck) {
      try await Self.inChildProcess(.adopt, subject)
    }
  }

  static func adoptRowsFromElsewhere(_ subject: Subject) async throws {
    let name = "saved elsewhere \(subject.side)"
    let saved = try await Self.insertElsewhere(name, subject)
    let taker = subject.makeController()
    var observed: [String] = []
    do {
      try await taker.adopt(saved)
      let adopted = await taker.name()
      if adopted != name {
        observed.append(
          "after adopt(_:) of a row another context saved, name() read "
            + String(describing: adopted))
      }
    } catch {
      observed.append("adopt(_:) of a row another context saved threw \(error)")
    }
    try await Self.deleteElsewhere(saved, subject)
    let late = subject.makeController()
    do {
      try await late.adopt(saved)
      observed.append(
        "adopt(_:) of a row another context had deleted returned normally; name() then read "
          + String(describing: await late.name()))
    } catch {}
    expect(observed.isEmpty, observed: observed.joined(separator: "; "), lesson: adoptLesson)
  }

  /// Saves a row named `name` from a context of its own, and returns its permanent ID.
  static func insertElsewhere(_ name: String, _ subject: Subject) async throws -> ManagedObjectID {
    let other = subject.container().newBackgroundContext()
    other.name = "elsewhere"
    let ids = try await other.perform {
      func insert<Entity: ManagedObject>(_ entity: Entity.Type) throws -> [ManagedObjectID] {
        var request = BatchInsertRequest<Entity>(objects: [["name": name]])
        request.resultType = .objectIDs
        return try other.execute(request).objectIDs ?? []
      }
      return try subject.side == .yours
        ? insert(Step3.CoreDataEntity.self) : insert(Step3Solution.CoreDataEntity.self)
    }
    try require(
      ids.count == 1, observed: "the check could not save a row elsewhere", lesson: adoptLesson)
    return ids[0]
  }

  /// Deletes the row `id` names from a context of its own, and saves.
  static func deleteElsewhere(_ id: ManagedObjectID, _ subject: Subject) async throws {
    let other = subject.container().newBackgroundContext()
    other.name = "elsewhere"
    try await other.perform {
      other.delete(try other.existingObject(with: id))
      try other.save()
    }
  }
}

/// The Step 3 scenarios whose wrong answers can stop the program (a lookup of a gone row with
/// `object(with:)`, a `try!`): each runs in a child process, an exit test that captures the
/// scenario and the side by name. The stub's "not started" said there is relayed to the
/// parent's check (`ChildCheck.runStretch`).
enum Step3Scenario: String, Codable, Sendable {
  case adopt
  case histories
  case listHistories

  var check: ExamCheck {
    switch self {
    case .adopt: Step3Tests.adoptCheck
    case .histories: Step3Tests.historiesCheck
    case .listHistories: Step3Tests.listHistoriesCheck
    }
  }

  func run(_ subject: Subject) async throws {
    switch self {
    case .adopt: try await Step3Tests.adoptRowsFromElsewhere(subject)
    case .histories: try await Step3Tests.randomEntityHistories(subject, lists: false)
    case .listHistories: try await Step3Tests.randomEntityHistories(subject, lists: true)
    }
  }
}

extension Step3Tests {
  static let endedTheProcess = step.lesson(
    rule: "A lookup by ID of a row that is gone is an error to throw: `object(with:)` is for "
      + "IDs known to be valid, and on a gone row Core Data raises (the core stops the program); "
      + "`try!` and `as!` stop it too.",
    hint: "Look the entity up with existingObject(with:as:), with `try`, and let the error "
      + "reach adopt(_:)'s caller.", read: "handing-an-entity-over")

  /// Runs `scenario` for `subject` in a child process (Swift 6.3's exit tests), else in this one.
  ///
  /// In verify mode the sides are the untouched starter and the reference, neither of which
  /// stops the program, so the scenario runs here, as Step 5's do (a parent waits for its child
  /// on a thread of the cooperative pool). The attendee's runs and the wrong-answer gate take
  /// the child.
  static func inChildProcess(_ scenario: Step3Scenario, _ subject: Subject) async throws {
    if isVerifyMode {
      try await scenario.run(subject)
      return
    }
    let result = await withExitTestOffThePool {
      await #expect(
        processExitsWith: .success, observing: [\.standardErrorContent],
        "the scenario must finish without ending its process"
      ) { [side = subject.side as ExamSide, scenario = scenario as Step3Scenario] in
        let subject = Subject.every.first(of: side)
        await ChildCheck.runStretch(scenario.check) { try await scenario.run(subject) }
      }
    }
    ChildCheck.report(result, died: endedTheProcess)
  }
}
