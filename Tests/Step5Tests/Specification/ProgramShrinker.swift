import ManagedObjectCore

/// A program that broke the rule, with the history of its last run.
struct FailingProgram: Sendable {
  let steps: [ProgramStep]
  let breach: Breach
  let history: [SchedulerHistory.Entry]
  /// How many steps the program had before it was shrunk.
  let originalLength: Int
}

/// Takes steps out of a failing program for as long as it still breaks the same part of the
/// rule, so that the history printed is the shortest that shows the mistake: halves first,
/// then smaller and smaller pieces, down to single steps. Races make a run vary, so a piece
/// whose removal hides the mistake in one run is kept; the search stops at its time budget.
enum ProgramShrinker {
  static func shrink(
    _ failing: FailingProgram, _ subject: Subject, on container: PersistentContainer,
    seed: UInt64, budget: Duration
  ) async -> FailingProgram {
    let deadline = ContinuousClock.now + budget
    var best = failing
    var piece = max(best.steps.count / 2, 1)
    while ContinuousClock.now < deadline {
      var start = 0
      var shrunk = false
      while start < best.steps.count, ContinuousClock.now < deadline {
        var candidate = best.steps
        candidate.removeSubrange(start..<min(start + piece, candidate.count))
        var run = ProgramRun(subject, on: container, seed: seed)
        if let breach = await run.run(candidate), breach.rule == failing.breach.rule {
          best = FailingProgram(
            steps: candidate, breach: breach, history: run.history.all,
            originalLength: failing.originalLength)
          shrunk = true
        } else {
          start += piece
        }
      }
      if !shrunk {
        if piece == 1 { break }
        piece = max(piece / 2, 1)
      }
    }
    return best
  }
}
