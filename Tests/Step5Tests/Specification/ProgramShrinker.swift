import ManagedObjectCore
import WorkshopSupport

/// A program that broke the rule, with the history of its last run.
struct FailingProgram: Sendable {
  let steps: [ProgramStep]
  let breach: Breach
  let history: [SchedulerHistory.Entry]
  /// How many steps the program had before it was shrunk.
  let originalLength: Int
}

extension FailingProgram {
  /// The shortest program found that still breaks the same part of the rule
  /// (``Shrinking/shrink(_:failing:budget:stillFails:)``), each candidate run afresh.
  func shrunk(
    _ subject: Subject, on container: PersistentContainer, seed: UInt64, budget: Duration
  ) async -> FailingProgram {
    let rule = breach.rule
    // Each candidate gives up when the budget is spent, rather than waiting out its bound.
    let deadline = ContinuousClock.now + budget
    let best = await Shrinking.shrink(
      steps, failing: (breach, history), budget: budget
    ) { candidate -> (Breach, [SchedulerHistory.Entry])? in
      var run = ProgramRun(subject, on: container, seed: seed)
      run.giveUpAt = deadline
      guard let breach = await run.run(candidate), breach.rule == rule else { return nil }
      return (breach, run.history.all)
    }
    return FailingProgram(
      steps: best.steps, breach: best.failure.0, history: best.failure.1,
      originalLength: originalLength)
  }
}
