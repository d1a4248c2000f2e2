import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// What `self[id, as:]` answered in the lookup check's scenario: a note added, read and renamed
/// by one model actor, deleted by another, then asked for again, with another entity's ID and
/// another store's ID.
struct LookupAnswers: Codable, Sendable, CustomStringConvertible {
  var found: String?
  var renamed = false
  var afterDeletion: String?
  var wrongEntity: String?
  var foreign: String?
  /// What the scenario threw, if it did not get to the end.
  var error: String?

  /// Runs the scenario against `subject`, in this process.
  static func ask(_ subject: Subject) async throws -> LookupAnswers {
    let container = PersistentContainer(name: "step6-lookup")
    let handler = subject.make(container)
    let other = subject.make(container)
    var answers = LookupAnswers()
    let id = try await handler.addNote("kept")
    answers.found = await handler.text(of: id)
    answers.renamed = try await handler.rename(id, to: "renamed")
    let labelID = try await container.performBackgroundTask { context in
      let label = Label(context: context)
      try context.save()
      return label.objectID
    }
    let foreignID = try await subject.make(PersistentContainer(name: "elsewhere"))
      .addNote("foreign")
    try await other.delete(id)
    answers.afterDeletion = await handler.text(of: id)
    answers.wrongEntity = await handler.text(of: labelID)
    answers.foreign = await handler.text(of: foreignID)
    return answers
  }

  /// The line of an exit test's standard error that carries the answers.
  static let marker = "STEP6-LOOKUP-ANSWERS: "

  /// Runs the scenario (in an exit test's child process) and writes the answers, or what the
  /// scenario threw, to standard error. A lookup that traps never gets here: the child reports
  /// its death instead (`ChildCheck.catchDeath()`), with the message of the call that trapped.
  static func report(for subject: Subject) async {
    ChildCheck.catchDeath()
    var answers: LookupAnswers
    do {
      // Bounded: an executor that never runs a job would leave the child process waiting.
      answers = try await withTimeout(.seconds(20), "the lookup scenario") {
        try await ask(subject)
      }
    } catch {
      answers = LookupAnswers(error: "\(error)")
    }
    let json = (try? JSONEncoder().encode(answers)).map { String(decoding: $0, as: UTF8.self) }
    FileHandle.standardError.write(Data("\(marker)\(json ?? "{}")\n".utf8))
  }

  init(
    found: String? = nil, renamed: Bool = false, afterDeletion: String? = nil,
    wrongEntity: String? = nil, foreign: String? = nil, error: String? = nil
  ) {
    self.found = found
    self.renamed = renamed
    self.afterDeletion = afterDeletion
    self.wrongEntity = wrongEntity
    self.foreign = foreign
    self.error = error
  }

  /// The answers that `report(for:)` wrote into `standardError`.
  init(reportedIn standardError: [UInt8]) throws {
    let line = String(decoding: standardError, as: UTF8.self).split(separator: "\n")
      .last { $0.hasPrefix(Self.marker) }
    guard let line else {
      self.init(error: "the child process reported no answers")
      return
    }
    self = try JSONDecoder().decode(
      LookupAnswers.self, from: Data(line.dropFirst(Self.marker.count).utf8))
  }

  var areRight: Bool {
    error == nil && found == "kept" && renamed && afterDeletion == nil && wrongEntity == nil
      && foreign == nil
  }

  var description: String {
    if let error { return "the lookup scenario stopped with an error: \(error)" }
    return "found \(String(describing: found)), renamed: \(renamed); after deletion "
      + "\(String(describing: afterDeletion)); another entity's ID "
      + "\(String(describing: wrongEntity)); another store's ID \(String(describing: foreign))"
  }
}

/// The runtime's isolation questions: optional to answer in this step, but an answer must never
/// say yes off the context's queue.
extension Step6Tests {
  static let isolationClaimCheck = step.check(
    "a model actor's executor never claims isolation off its context's queue", .passesOnStarter)

  static let isolationClaimLesson = step.lesson(
    rule: "When the runtime cannot tell by itself, it asks the executor whether the current code "
      + "is isolated to it (isIsolatingCurrentContext, then checkIsolated). Off the context's "
      + "queue the answer is no: a yes there lets assumeIsolated and preconditionIsolated() wave "
      + "code through that races with the actor.",
    hint: "Answer from this actor's own context: yes only inside its perform, and never from "
      + "any other thread. Or leave both out: the defaults say no.",
    read: "you-will-need")

  @Test(
    "a model actor's executor never claims isolation off its context's queue",
    arguments: Subject.all)
  func executorNeverClaimsIsolationOffTheQueue(_ subject: Subject) async {
    await exam(subject.side, Self.isolationClaimCheck) {
      let handler = subject.make(PersistentContainer(name: "step6-isolation"))
      let answer = handler.executor.isIsolatingCurrentContext()
      expect(
        answer != true,
        observed: "isIsolatingCurrentContext() answered true in a test task, off the context's "
          + "queue", lesson: Self.isolationClaimLesson)
      // checkIsolated() must stop the program off the queue: in a child process.
      let stopped = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .failure,
          "the model actor's checkIsolated() must stop the program off the context's queue"
        ) { [side = subject.side as ExamSide] in
          Subject.every.first(of: side).make(PersistentContainer(name: "step6-isolation")).executor
            .checkIsolated()
        }
      }
      expect(
        stopped != nil,
        observed: "checkIsolated() returned normally in a test task, off the context's queue",
        lesson: Self.isolationClaimLesson)
    }
  }
}

/// True when `handler`'s jobs go to the executor it keeps in `modelExecutor`: the identity of its
/// `unownedExecutor` is that executor's. Nothing is called on the executors, so an executor made
/// on each call (and freed at once) is only compared, never used.
func runsOnItsModelExecutor(_ handler: any Handler) -> Bool {
  identity(of: handler.unownedExecutor) == identity(of: handler.executor.asUnownedSerialExecutor())
}

/// True when `handler` is a default actor, as the untouched starter's are: its executor reference
/// names the actor itself.
func isDefaultActor(_ handler: any Handler) -> Bool {
  identity(of: handler.unownedExecutor) == UInt(bitPattern: ObjectIdentifier(handler))
}

extension Step6Tests {
  /// Before a check runs a job on `handlers`: each runs its jobs on the executor it keeps, or is
  /// a default actor. Any other executor was made for the call (and freed at once) or is shared:
  /// a job on a freed one ends the process, and every other check's result with it, so the
  /// check stops here with the lesson instead.
  static func requireRunnableExecutors(_ handlers: any Handler...) throws {
    let others = handlers.filter { !runsOnItsModelExecutor($0) && !isDefaultActor($0) }
    try require(
      others.isEmpty,
      observed: "a model actor's unownedExecutor is neither the executor in its modelExecutor "
        + "nor the runtime's default: it hands out another one (made on each call, or shared by "
        + "every model actor), so the check runs no job on it",
      lesson: oneExecutorLesson)
  }
}

/// The first word of an unowned executor reference: the executor object's address.
private func identity(of executor: UnownedSerialExecutor) -> UInt {
  withUnsafeBytes(of: executor) { $0.load(as: UInt.self) }
}
