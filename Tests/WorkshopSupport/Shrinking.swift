/// Shrinks a failing program, a list of steps, to a shorter one that still fails the same way:
/// halves are taken out first, then smaller and smaller pieces, down to single steps, for as
/// long as `stillFails` says the rest still fails. What the history checks print is then the
/// shortest history found, not the first.
///
/// Races make a run vary: a piece whose removal hides the mistake in one run is kept. The search
/// stops when nothing more can go, or at its time budget.
public enum Shrinking {
  /// The shortest program found, with the failure its last failing run gave.
  public static func shrink<Step, Failure>(
    _ steps: [Step], failing failure: Failure, budget: Duration,
    stillFails: ([Step]) async -> Failure?
  ) async -> (steps: [Step], failure: Failure) {
    let deadline = ContinuousClock.now + budget
    var best = (steps: steps, failure: failure)
    var piece = max(steps.count / 2, 1)
    while ContinuousClock.now < deadline {
      var start = 0
      var shrunk = false
      while start < best.steps.count, ContinuousClock.now < deadline {
        var candidate = best.steps
        candidate.removeSubrange(start..<min(start + piece, candidate.count))
        if let failure = await stillFails(candidate) {
          best = (candidate, failure)
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
