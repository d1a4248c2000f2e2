import ManagedObjectCore
import Testing
import WorkshopSupport

/// The exam by specification: random programs of callers run against the scheduler, each step
/// recorded, and every history judged whole against the model (``SchedulerSpecification``).
/// The scenario checks show one mistake each; these find the ones nobody named.
extension Step5Tests {
  static let admissionHistoriesCheck = step.check(
    "random reads and writes: every history keeps the rule", .failsOnStarter)

  @Test("random reads and writes: every history keeps the rule", arguments: Subject.all)
  func admissionHistories(_ subject: Subject) async {
    await exam(subject.side, Self.admissionHistoriesCheck) {
      try await Self.inChildProcess(.admissionHistories, subject)
    }
  }

  static let cancellationHistoriesCheck = step.check(
    "random cancellations and calls back in: every history keeps the rule", .failsOnStarter)

  @Test(
    "random cancellations and calls back in: every history keeps the rule",
    arguments: Subject.all)
  func cancellationHistories(_ subject: Subject) async {
    await exam(subject.side, Self.cancellationHistoriesCheck) {
      try await Self.inChildProcess(.cancellationHistories, subject)
    }
  }

  /// How many programs a check runs, and how long each is: enough that each kind of mistake
  /// the catalogue holds fails (nearly) every run, few enough for the step's 3 s.
  static func programs(for level: ProgramLevel) -> (count: Int, length: Int) {
    switch level {
    case .admission: (HistorySettings.programs(10), 30)
    case .cancellation: (HistorySettings.programs(12), 30)
    }
  }

  /// Runs random programs of `level` against `subject`'s scheduler and fails with the shortest
  /// history found that breaks the rule.
  static func randomHistories(_ subject: Subject, level: ProgramLevel) async throws {
    let seed = HistorySettings.seed
    let container = PersistentContainer(name: "step5-histories")
    let (count, length) = programs(for: level)
    var generator = ProgramGenerator(seed: seed, level: level)
    for index in stride(from: 1, through: count, by: 1) {
      let steps = generator.program(length: length)
      var run = ProgramRun(subject, on: container, seed: seed &+ UInt64(index))
      guard let breach = await run.run(steps) else { continue }
      let failing = await FailingProgram(
        steps: steps, breach: breach, history: run.history.all, originalLength: steps.count
      )
      .shrunk(subject, on: container, seed: seed &+ UInt64(index), budget: .seconds(1))
      expect(
        false, observed: describe(failing, seed: seed, program: index),
        lesson: failing.breach.rule.lesson)
      return
    }
    if level == .cancellation {
      // Short runs of ten cancels each, that hand their aim on to the next.
      var aim = (nanoseconds: 1_000, step: 800)
      for round in 0..<24 {
        var run = ProgramRun(subject, on: container, seed: seed &+ UInt64(round))
        (run.cancelAim, run.cancelStep) = aim
        let steps = ProgramGenerator.cancelRound(10)
        guard let breach = await run.run(steps) else {
          aim = (run.cancelAim, run.cancelStep)
          continue
        }
        let failing = await FailingProgram(
          steps: steps, breach: breach, history: run.history.all, originalLength: steps.count
        )
        .shrunk(subject, on: container, seed: seed, budget: .seconds(1))
        expect(
          false, observed: describe(failing, seed: seed, program: count + 1 + round),
          lesson: failing.breach.rule.lesson)
        return
      }
      return
    }
    guard level == .admission else { return }
    if let (breach, recent) = await StormRun.run(subject, on: container, seed: seed) {
      expect(
        false,
        observed: "two callers asking at the same instant on a free slot, \(StormRun.rounds) "
          + "rounds (seed \(seed)): \(breach.observed). The last events before it:\n  "
          + recent.joined(separator: "\n  "),
        lesson: breach.rule.lesson)
    }
  }

  /// The stretch task's rounds: a capped write behind a running write that is let go around
  /// the capped write's limit, on a staircase that gathers the rounds where the timer and the
  /// grant meet. Random programs with capped writes pending among other steps are left out:
  /// a timer that fires while the run waits for something else made a correct scheduler's
  /// caller look stuck under the sanitizers, and that is the run's noise, not the answer's.
  static func timerAgainstGrant(_ subject: Subject) async throws {
    let seed = HistorySettings.seed
    let container = PersistentContainer(name: "step5-timers")
    // A staircase: the block ahead is let go earlier after a round the timer won, later
    // after one the grant won, in steps that shrink, so that the rounds gather where the two
    // meet, wherever that is on this machine, under this load.
    var (offset, step) = (Duration.zero, Duration.microseconds(400))
    for round in 0..<24 {
      var run = ProgramRun(subject, on: container, seed: seed &+ UInt64(round))
      let steps = ProgramGenerator.timerRound(offset: offset)
      if let breach = await run.run(steps) {
        let failing = FailingProgram(
          steps: steps, breach: breach, history: run.history.all, originalLength: steps.count)
        expect(
          false, observed: describe(failing, seed: seed, program: 1 + round),
          lesson: breach.rule.lesson)
        return
      }
      let timerWon = run.history.all.contains {
        if case .returned(2, .timedOut) = $0.event { true } else { false }
      }
      offset = timerWon ? offset - step : offset + step
      step = max(step * 0.7, .microseconds(5))
    }
    // The moment itself, held open: the block ahead ends after the timer fired and before the
    // capped write's code acts on it. A timer raced against the wait in a task group keeps the
    // slot here every round; on its own, the staircase above brings the two together within
    // microseconds, which that mistake's window is narrower than.
    for round in 0..<4 {
      var run = ProgramRun(subject, on: container, seed: seed &+ UInt64(24 + round))
      let steps = ProgramGenerator.heldTimerRound()
      if let breach = await run.run(steps) {
        let failing = FailingProgram(
          steps: steps, breach: breach, history: run.history.all, originalLength: steps.count)
        expect(
          false, observed: describe(failing, seed: seed, program: 25 + round),
          lesson: breach.rule.lesson)
        return
      }
    }
  }

  /// The Observed part of a failure: the seed, and the history, marked where it broke.
  static func describe(_ failing: FailingProgram, seed: UInt64, program: Int) -> String {
    var lines = [
      "a random program broke the rule (program \(program), seed \(seed): "
        + "WORKSHOP_SEED=\(seed) replays it), shrunk from \(failing.originalLength) steps to "
        + "\(failing.steps.count). What happened:"
    ]
    var action = 0
    for (index, entry) in failing.history.enumerated() {
      if entry.event.isAction { action += 1 }
      let prefix = entry.event.isAction ? "  \(action). " : "  "
      let line = prefix + "\(entry.event)"
      if index == failing.breach.at {
        lines.append(line + "   ◀ here: " + failing.breach.observed)
        break
      }
      lines.append(line)
    }
    if failing.breach.at == nil {
      lines.append("  and then, within \(ProgramRun.settleBound): " + failing.breach.observed)
    }
    return renumbered(lines.joined(separator: "\n"))
  }

  /// The callers of a shrunk history, numbered C1, C2, … in the order they first appear, so
  /// that what was taken out leaves no gaps.
  static func renumbered(_ text: String) -> String {
    var numbers: [Substring: Int] = [:]
    return text.replacing(/\bC(\d+)\b/) { match in
      let number =
        numbers[match.output.1]
        ?? {
          numbers[match.output.1] = numbers.count + 1
          return numbers.count
        }()
      return "C\(number)"
    }
  }
}
