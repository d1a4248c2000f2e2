import WorkshopSupport

/// A run in which a caller waits for a slot it can never get, or waits where the queue does not
/// count it, read from the run's own history and the scheduler's `waitingCount`
/// (``StallReading``): drawn for a program's run, so that its settle ends as soon as it shows
/// instead of waiting out its bound. Every cancel the history records was sent before the
/// settle that looks began, and the blocks that run wait for the checks' next command.
struct StalledRun: StalledPicture {
  let observed: String
  /// How many events the history had, and what `waitingCount` said: the same state seen again
  /// has had no event since.
  let events: Int
  let waiting: Int

  init?(_ entries: [SchedulerHistory.Entry], waitingCount waiting: Int) {
    events = entries.count
    self.waiting = waiting
    var access: [Int: Access] = [:]
    var (started, ended, returned, cancelled) = (Set<Int>(), Set<Int>(), Set<Int>(), Set<Int>())
    for entry in entries {
      switch entry.event {
      case .asks(let call, let kind, _): access[call] = kind
      case .asksCancelled(let call, let kind, _):
        access[call] = kind
        cancelled.insert(call)
      case .cancel(let call), .race(cancel: let call, _): cancelled.insert(call)
      case .started(let call): started.insert(call)
      case .ended(let call): ended.insert(call)
      case .returned(let call, _): returned.insert(call)
      default: break
      }
    }
    let live = access.keys.filter { !returned.contains($0) }.sorted().map {
      StallReading.Caller(
        name: "C\($0)", access: access[$0]!, cancelled: cancelled.contains($0),
        started: started.contains($0), ended: ended.contains($0))
    }
    guard let observed = StallReading.observed(live, waitingCount: waiting) else { return nil }
    self.observed = observed
  }
}

/// A state in which a caller waits for a slot it can never get, with what was seen, in words.
protocol StalledPicture: Equatable {
  var observed: String { get }
}

/// Follows the stalled states that looks see (a settle's, a bounded wait's), look by look: one
/// counts once it was seen the same for ``steadyFor`` (each gap between two looks counting at
/// most 25 ms, so that a process kept from running does not see a state for long by looking at
/// it seconds apart) and across ``steadyLooks`` round trips of the cooperative pool
/// (``PoolRounds``), so that a caller waiting for a thread is not taken for one waiting for
/// good. A right answer never shows one at all; this only keeps a look that fell between two
/// steps of an answer that is merely unusual, or slow to get a thread, from deciding.
struct StallSighting<State: StalledPicture> {
  static var steadyFor: Duration { .milliseconds(250) }
  static var steadyLooks: Int { 5 }

  private let rounds = PoolRounds()
  private var last:
    (state: State, at: ContinuousClock.Instant, seen: Duration, looks: Int, round: Int)?

  /// Takes in one look (nil: no stalled state); what was seen, once it counts.
  mutating func look(_ state: State?) -> String? {
    // Only where bounded waits count the pool's time (``countsPoolTime``). Under the sanitizers,
    // which run only the solution, a caller let in was seen not to reach its block for longer
    // than a sighting lasts (the thread sanitizer, 1 of 99 callers), and the solution failed:
    // there the bounds govern.
    guard countsPoolTime, let state else {
      last = nil
      return nil
    }
    let now = ContinuousClock.now
    let round = rounds.tick()
    if let last, last.state == state {
      // A look counts only once the pool has made a round trip since the last one that did.
      let counts = round > last.round
      self.last = (
        state, now, last.seen + min(now - last.at, .milliseconds(25)),
        last.looks + (counts ? 1 : 0), counts ? round : last.round
      )
    } else {
      last = (state, now, .zero, 1, round)
    }
    guard let last, last.looks >= Self.steadyLooks, last.seen >= Self.steadyFor else {
      return nil
    }
    return state.observed
      + " (the same in \(last.looks) looks over \(Int(last.seen / .milliseconds(1))) ms)"
  }
}
