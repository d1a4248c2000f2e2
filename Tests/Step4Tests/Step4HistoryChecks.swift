import Testing
import WorkshopSupport

/// The exam by specification: random programs of tasks started on four actors, each on an
/// executor of the side's type with a context of its own, every history judged whole against the
/// model (``ExecutorSpecification``). The scenario checks show one mistake each; this one finds
/// those nobody named: a buffer shared by every executor, a job run at once on the queue, an
/// isolation answer that holds only while no job runs.
extension Step4Tests {
  static let historiesCheck = step.check(
    "random programs on four executors: every history keeps the rule", .failsOnStarter)

  @Test("random programs on four executors: every history keeps the rule", arguments: Subject.all)
  func randomHistories(_ subject: Subject) async {
    await exam(subject.side, Self.historiesCheck) {
      await Self.inChildProcess(.histories, subject)
    }
  }

  /// How many programs the check runs, and how long each is: enough that each mistake the
  /// catalogue holds fails (nearly) every run, few enough for the step's 3 s.
  static var programs: (count: Int, length: Int) {
    (HistorySettings.programs(12), 12)
  }

  /// In a child process: the programs, run one after the other on a thread of their own.
  static func histories(_ subject: Subject) async throws {
    // An executor that drops its jobs fails here at once, with its own lesson, rather than
    // after every program has waited for them.
    try await requireHandOff(subject.spare)
    let seed = HistorySettings.seed
    let places = ActorAndContext.all(subject.side)
    let (count, length) = programs
    let failure = try await offThePool { () -> (Int, ProgramShrinker.Failing)? in
      var generator = ProgramGenerator(seed: seed)
      for index in 1...max(count, 1) {
        let steps = generator.program(length: length)
        let run = ProgramRun(places)
        guard let breach = run.run(steps) else { continue }
        return (index, .init(steps: steps, breach: breach, history: run.history.all))
      }
      return nil
    }
    guard let (index, first) = failure else { return }
    let rule = first.breach.rule
    let shrunk = await Shrinking.shrink(
      first.steps, failing: first, budget: .milliseconds(1_000)
    ) { candidate -> ProgramShrinker.Failing? in
      let again = try? await offThePool { () -> ProgramShrinker.Failing? in
        let run = ProgramRun(places)
        guard let breach = run.run(candidate), breach.rule == rule else { return nil }
        return .init(steps: candidate, breach: breach, history: run.history.all)
      }
      return again ?? nil
    }
    expect(
      false,
      observed: describe(
        shrunk.failure, seed: seed, program: index, length: first.steps.count),
      lesson: shrunk.failure.breach.rule.lesson)
  }

  /// The Observed part of a failure: the seed, the shrunk program, and its history, marked where
  /// it broke.
  static func describe(
    _ failing: ProgramShrinker.Failing, seed: UInt64, program: Int, length: Int
  ) -> String {
    var lines = [
      "a random program broke the rule (program \(program), seed \(seed): "
        + "WORKSHOP_SEED=\(seed) runs it again), shrunk from \(length) steps to "
        + "\(failing.steps.count):"
    ]
    lines += failing.steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }
    lines.append("What happened:")
    for (index, event) in failing.history.enumerated() {
      // Right isolation answers are many and say nothing: only a wrong one is shown.
      if case .answered(_, _, let answer, let truth) = event, answer == truth,
        index != failing.breach.at
      {
        continue
      }
      let line = "  \(event)"
      if index == failing.breach.at {
        // A wrong answer's line says it all; any other breach says what it broke.
        let isAnswer = if case .answered = event { true } else { false }
        lines.append(line + "   ◀ here" + (isAnswer ? "" : ": " + failing.breach.observed))
        break
      }
      lines.append(line)
    }
    if failing.breach.at == nil {
      lines.append("  and then, within \(ProgramRun.settleBound): " + failing.breach.observed)
    }
    return lines.joined(separator: "\n")
  }
}
