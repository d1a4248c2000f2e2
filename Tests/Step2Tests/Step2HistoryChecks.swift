import ManagedObjectCore
import Testing
import WorkshopSupport

/// The exam by specification: random programs of calls, from many tasks at once, to three
/// controllers of one store, with deletes made elsewhere and writes held at their save while
/// other calls run, each answer and the store after each step judged against the model
/// (``EntitySpecification``). The scenario checks show one mistake each; these find a mistake on
/// another path of the same code, with a second controller, or in another order.
extension Step2Tests {
  static let historiesCheck = step.check(
    "random calls from many tasks on three controllers: every answer and the store keep the rule",
    .failsOnStarter)

  @Test(
    "random calls from many tasks on three controllers: every answer and the store keep the rule",
    arguments: Subject.all)
  func entityHistories(_ subject: Subject) async {
    await exam(subject.side, Self.historiesCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.histories, subject)
    }
  }

  static let batchHistoriesCheck = step.check(
    "random calls and batches from many tasks: every answer and the store keep the rule",
    .stretch)

  @Test(
    "random calls and batches from many tasks: every answer and the store keep the rule",
    arguments: Subject.all)
  func batchHistories(_ subject: Subject) async {
    await exam(subject.side, Self.batchHistoriesCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.batchHistories, subject)
    }
  }

  static let historyLesson = step.lesson(
    rule: "A controller keeps its entity's permanent ID, and nothing else: no object, no "
      + "context, no ID before the save. Each call turns the ID into the entity in a context of "
      + "its own: it answers for the store as it is, an entity deleted elsewhere throws "
      + "objectDeleted, and a call that throws leaves nothing behind.",
    hint: "Look at what your controller keeps between calls, and when it sets it: one "
      + "`Mutex<ManagedObjectID?>`, per controller, set after the save; each call makes its own "
      + "context and refetches with `existingObject(with:as:)`.",
    read: "the-rule")

  static let batchHistoryLesson = step.lesson(
    rule: "A batch lands whole or not at all, and leaves no trace when it throws: not in the "
      + "store, and not in a context a later batch saves. Each call makes its own context.",
    hint: "One `container.newBackgroundContext()` per call of renameAll(_:to:), never kept "
      + "between calls: what a failed batch renamed dies with its context.",
    read: "stretch-task")

  /// Runs random programs against `subject`'s controllers and fails with the shortest history
  /// found that breaks the rule. A dozen programs of eight steps fail every catalogued mistake
  /// nearly every run, in well under a second.
  static func randomEntityHistories(_ subject: Subject, batches: Bool) async throws {
    let seed = HistorySettings.seed
    let count = HistorySettings.programs(12)
    if batches {
      // A stub that still says "not started" is heard before any program runs: the task is
      // optional until then.
      try await withTimeout(.seconds(20), "renameAll(_:to:) of no ID") {
        try await subject.make(PersistentContainer(name: "step2-histories-stub"))
          .renameAll([], to: "stub")
      }
    }
    var generator = EntityProgramGenerator(seed: seed, batches: batches)
    for index in stride(from: 1, through: count, by: 1) {
      let steps = generator.program(rounds: 8)
      let history = try await EntityProgramRun.run(steps, subject)
      guard let breach = history.breach else { continue }
      let shrunk = try await shrink(
        steps, history, breaking: breach.rule, subject, budget: .milliseconds(500))
      expect(
        false,
        observed: describe(
          shrunk.history, seed: seed, program: index, from: steps.count, to: shrunk.steps.count),
        lesson: breach.rule == .violation ? lesson : batches ? batchHistoryLesson : historyLesson)
      return
    }
  }

  /// The calls of a program, each with its step and its part of it, so that the shared shrinker
  /// can take out whole steps (a run of calls) and single calls alike.
  struct PlacedCall: Sendable, Equatable {
    let step: Int
    let isHeldWrite: Bool
    let isHeldStep: Bool
    let call: EntityCall
  }

  static func placed(_ steps: [EntityStep]) -> [PlacedCall] {
    steps.enumerated().flatMap { index, step -> [PlacedCall] in
      switch step {
      case .together(let calls):
        calls.map { PlacedCall(step: index, isHeldWrite: false, isHeldStep: false, call: $0) }
      case .held(let writes, let meanwhile):
        writes.map { PlacedCall(step: index, isHeldWrite: true, isHeldStep: true, call: $0) }
          + meanwhile.map {
            PlacedCall(step: index, isHeldWrite: false, isHeldStep: true, call: $0)
          }
      }
    }
  }

  static func steps(_ calls: [PlacedCall]) -> [EntityStep] {
    var steps: [EntityStep] = []
    var index = 0
    while index < calls.count {
      let run = calls[index...].prefix { $0.step == calls[index].step }
      index += run.count
      let writes = run.filter(\.isHeldWrite).map(\.call)
      let meanwhile = run.filter { !$0.isHeldWrite }.map(\.call)
      steps.append(
        run.first!.isHeldStep && !writes.isEmpty
          ? .held(writes: writes, meanwhile: meanwhile) : .together(writes + meanwhile))
    }
    return steps
  }

  /// The shortest program found that still breaks the same part of the rule
  /// (``Shrinking/shrink(_:failing:budget:stillFails:)``), each candidate run afresh.
  static func shrink(
    _ steps: [EntityStep], _ history: EntityHistory, breaking rule: EntityHistory.Rule,
    _ subject: Subject, budget: Duration
  ) async throws -> (steps: [EntityStep], history: EntityHistory) {
    let best = await Shrinking.shrink(placed(steps), failing: history, budget: budget) {
      candidate -> EntityHistory? in
      guard let history = try? await EntityProgramRun.run(Self.steps(candidate), subject),
        history.breach?.rule == rule
      else { return nil }
      return history
    }
    return (Self.steps(best.steps), best.failure)
  }

  /// The Observed part of a failure: the seed, and the history, marked where it broke.
  static func describe(
    _ history: EntityHistory, seed: UInt64, program: Int, from original: Int, to shrunk: Int
  ) -> String {
    var lines = [
      "a random program broke the rule (program \(program), seed \(seed): "
        + "WORKSHOP_SEED=\(seed) replays it), shrunk from \(original) steps to \(shrunk). "
        + "Controllers A, B and C share one store; En is the entity the configure named \"en\" "
        + "made. What happened:"
    ]
    let names = EntitySpecification.Step(before: .init(), calls: [], ids: history.ids)
    func listed(_ pairs: [(EntityCall, EntityOutcome)]) -> String {
      pairs.map { "\($0.0.described) → \(names.describe($0.1))" }.joined(separator: "; ")
    }
    var step = 0
    for (index, event) in history.events.enumerated() {
      let line: String
      switch event {
      case .together(let pairs):
        step += 1
        line = "  \(step). at once: " + listed(pairs)
      case .held(let writes, let meanwhile):
        step += 1
        line =
          "  \(step). at once, each held at its save: " + listed(writes)
          + (meanwhile.isEmpty ? "" : "\n     meanwhile: " + listed(meanwhile))
      case .store(let stored, let unknown):
        let rows = stored.sorted { $0.key < $1.key }.map { "E\($0.key) \"\($0.value)\"" }
        line = "     the store: [\((rows + unknown.map { "? \"\($0)\"" }).joined(separator: ", "))]"
      }
      if let breach = history.breach, breach.at == index {
        lines.append(line + "\n     ◀ here: " + breach.observed)
        break
      }
      lines.append(line)
    }
    return lines.joined(separator: "\n")
  }
}
