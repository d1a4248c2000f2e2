/// Takes steps out of a failing program for as long as it still breaks the same part of the
/// rule, so that the history printed is the shortest that shows the mistake: halves first, then
/// smaller pieces, down to single steps. Races make a run vary, so a piece whose removal hides
/// the mistake in one run is kept; the search stops at its time budget.
enum ProgramShrinker {
  struct Failing: Sendable {
    let steps: [ProgramStep]
    let breach: ExecutorBreach
    let history: [ExecutorEvent]
  }

  static func shrink(
    _ failing: Failing, on places: [ActorAndContext], budget: Duration
  ) -> Failing {
    let deadline = ContinuousClock.now + budget
    var best = failing
    var piece = max(best.steps.count / 2, 1)
    while ContinuousClock.now < deadline {
      var start = 0
      var shrunk = false
      while start < best.steps.count, ContinuousClock.now < deadline {
        var candidate = best.steps
        candidate.removeSubrange(start..<min(start + piece, candidate.count))
        let run = ProgramRun(places)
        if let breach = run.run(candidate), breach.rule == failing.breach.rule {
          best = Failing(steps: candidate, breach: breach, history: run.history.all)
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
