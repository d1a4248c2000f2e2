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

extension Shrinking {
  /// Shrinks a program whose steps are made of parts (calls made together, say): the steps
  /// first, then each remaining step's parts, the last step first. A step whose parts all go is
  /// taken out.
  public static func shrink<Step, Part, Failure>(
    _ steps: [Step], failing failure: Failure, budget: Duration,
    parts: (Step) -> [Part]?, rebuilt: ([Part]) -> Step,
    stillFails: ([Step]) async -> Failure?
  ) async -> (steps: [Step], failure: Failure) {
    let deadline = ContinuousClock.now + budget
    var best = await shrink(steps, failing: failure, budget: budget, stillFails: stillFails)
    for position in best.steps.indices.reversed() {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { break }
      guard let list = parts(best.steps[position]), list.count > 1 else { continue }
      let program = best.steps
      func replaced(_ fewer: [Part]) -> [Step] {
        var candidate = program
        if fewer.isEmpty {
          candidate.remove(at: position)
        } else {
          candidate[position] = rebuilt(fewer)
        }
        return candidate
      }
      let inner = await shrink(list, failing: best.failure, budget: left) { fewer in
        await stillFails(replaced(fewer))
      }
      best = (replaced(inner.steps), inner.failure)
    }
    return best
  }
}
