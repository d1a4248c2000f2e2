/// A run in which a caller waits for a slot it can never get, read from the run's own history
/// and the scheduler's `waitingCount`: the picture ``WatchedScheduler/stalled()`` draws for the
/// scenario checks, drawn here for a program's run, so that its settle ends as soon as it shows
/// instead of waiting out its bound.
///
/// It holds only in a state that cannot change by itself: every caller that asked and has not
/// started its block is counted in the scheduler's own `waitingCount` (none is on its way into
/// the queue, none was let in and is on its way to its block, none has left the queue and is on
/// its way back), no block has ended without its caller returning (no release is on its way),
/// and the slot is free for the callers in the queue by the rule: no block runs, or only reads
/// run and only reads wait; or a caller whose task was cancelled is still counted there (every
/// cancel the history records was sent before the settle that looks began). Nothing is then
/// left to let a waiter in or take it out: the blocks that run wait for the checks' next
/// command. Or the count holds more callers than have asked and neither started nor returned:
/// callers resumed and left in the queue. A right answer never shows either: its release, its
/// cancellation handler and its timer take a caller out of the queue, under its lock, before
/// the caller is resumed.
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
    let live = access.keys.filter { !returned.contains($0) }
    let unstarted = live.filter { !started.contains($0) }
    let running = live.filter(started.contains)
    let names = { (calls: [Int]) in calls.sorted().map { "C\($0)" }.joined(separator: ", ") }
    // More callers counted than could be in the queue: every caller a right answer queues has
    // asked (and was recorded before it did) and has neither started nor returned, since it
    // leaves the queue before it is resumed. Those the count holds beyond that were resumed
    // and left in it, and nothing takes them out but a release that resumes them again.
    if waiting > unstarted.count {
      observed =
        "waitingCount said \(waiting), yet only \(unstarted.count) caller(s) had neither started "
        + "nor returned\(unstarted.isEmpty ? "" : " (\(names(unstarted)))"): the queue still "
        + "counted callers that had been resumed"
      return
    }
    // A block that ended, whose caller has not returned: its release may be on its way.
    guard !live.contains(where: ended.contains) else { return nil }
    // Every caller that has not started is in the queue by the scheduler's own count.
    guard waiting > 0, waiting == unstarted.count else { return nil }
    let waitingWrites = unstarted.filter { access[$0] == .write }
    let runningWrites = running.filter { access[$0] == .write }
    let stuck = unstarted.filter(cancelled.contains).sorted()
    let queued = "\(names(unstarted)) still waited (waitingCount said \(waiting))"
    if running.isEmpty {
      observed =
        "no block was running and every caller whose block had run had returned, yet "
        + "\(queued): the slot was free, and nobody was let in"
    } else if runningWrites.isEmpty, waitingWrites.isEmpty {
      observed =
        "only reads were running (\(names(running))) and only reads waited, yet \(queued): a "
        + "read may start beside reads, and none was let in"
    } else if !stuck.isEmpty {
      observed =
        "\(names(stuck)), cancelled, still waited in the queue: \(queued), none of them on its "
        + "way out"
    } else {
      return nil
    }
  }
}

/// A state in which a caller waits for a slot it can never get, with what was seen, in words.
protocol StalledPicture: Equatable {
  var observed: String { get }
}

/// Follows the stalled states that looks see (a settle's, a bounded wait's), look by look: one
/// counts once it was seen the same
/// for ``steadyFor`` (each gap between two looks counting at most 25 ms, so that a process kept
/// from running does not see a state for long by looking at it seconds apart) and in
/// ``steadyLooks`` looks. A right answer never shows one at all; this only keeps a look that fell
/// between two steps of an answer that is merely unusual from deciding.
struct StallSighting<State: StalledPicture> {
  static var steadyFor: Duration { .milliseconds(250) }
  static var steadyLooks: Int { 5 }

  private var last: (state: State, at: ContinuousClock.Instant, seen: Duration, looks: Int)?

  /// Takes in one look (nil: no stalled state); what was seen, once it counts.
  mutating func look(_ state: State?, scale: Double) -> String? {
    guard let state else {
      last = nil
      return nil
    }
    let now = ContinuousClock.now
    if let last, last.state == state {
      self.last = (state, now, last.seen + min(now - last.at, .milliseconds(25)), last.looks + 1)
    } else {
      last = (state, now, .zero, 1)
    }
    guard let last, last.looks >= Self.steadyLooks, last.seen >= Self.steadyFor * scale else {
      return nil
    }
    return state.observed
      + " (the same in \(last.looks) looks over \(Int(last.seen / .milliseconds(1))) ms)"
  }
}
