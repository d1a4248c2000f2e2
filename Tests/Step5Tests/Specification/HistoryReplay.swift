/// A history broke the rule at one event.
struct Breach: Sendable {
  /// The index of the event that broke it; nil when what broke it is what never happened.
  let at: Int?
  let rule: SchedulerRule
  let observed: String
}

/// Replays a recorded history against ``SchedulerSpecification``: what the checks did moves the
/// model; what the scheduler did is judged by it, at the moment it happened.
///
/// Two kinds of event are decided by the scheduler, not the checks: whether a cancel raced
/// against a grant came first, and whether a capped write's timer beat its turn. The replay
/// reads the outcome the caller saw later in the history (a cancelled caller never started; a
/// timed-out one is doomed, and the model never lets it in) and moves the model that way. While
/// such a caller has not shown which way it went, the replay is `undecided` and judges nothing
/// that depends on it.
struct HistoryReplay {
  private(set) var model = SchedulerSpecification()
  private(set) var breach: Breach?
  /// Calls whose outcome the replay needs and has not seen yet.
  private(set) var undecided: Set<Int> = []
  private(set) var started: Set<Int> = []
  private(set) var returned: [Int: CallOutcome] = [:]
  /// Calls whose block called back in and has not heard how that ended.
  private(set) var callingBackIn: Set<Int> = []
  /// Calls cancelled before their turn: each must return, with CancellationError.
  private(set) var mustBeCancelled: Set<Int> = []
  /// A capped write whose limit is shorter than this is expected to show, within the run,
  /// whether it timed out or got its turn; a longer limit is a write like any other.
  static let limitThatRunsOut: Duration = .seconds(1)

  /// How many events it replayed.
  let length: Int

  init(_ entries: [SchedulerHistory.Entry]) {
    length = entries.count
    var accesses: [Int: Access] = [:]
    var deadlines: [Int: ContinuousClock.Instant] = [:]
    var outcomes: [Int: CallOutcome] = [:]
    var startedEver: Set<Int> = []
    for entry in entries {
      switch entry.event {
      case .asks(let call, let access, let limit):
        accesses[call] = access
        if let limit { deadlines[call] = entry.time + limit }
      case .asksCancelled(let call, let access, _): accesses[call] = access
      case .returned(let call, let outcome): outcomes[call] = outcome
      case .started(let call): startedEver.insert(call)
      default: break
      }
    }
    model.doomed = Set(outcomes.filter { $0.value == .timedOut }.keys)
    let decided = { (call: Int) in startedEver.contains(call) || outcomes[call] != nil }

    var cancelled: Set<Int> = []
    // The doomed, in the order their limits run out: each leaves the model's queue then.
    var expiring = deadlines.filter { model.doomed.contains($0.key) }.sorted { $0.value < $1.value }
      .map { (call: $0.key, deadline: $0.value) }[...]
    var running: [Int: Access] = [:]
    for (index, entry) in entries.enumerated() where breach == nil {
      while let first = expiring.first, first.deadline <= entry.time {
        model.leave(first.call, because: .timedOut)
        expiring.removeFirst()
      }
      var failure: (rule: SchedulerRule, observed: String)?
      switch entry.event {
      case .asks(let call, let access, let limit):
        model.arrive(call, access)
        if let limit, limit < Self.limitThatRunsOut, !decided(call) { undecided.insert(call) }
      case .asksCancelled(let call, let access, let early):
        cancelled.insert(call)
        mustBeCancelled.insert(call)
        if early {
          model.refuse(call)
        } else {
          model.arrive(call, access)
          model.leave(call, because: .cancelled)
        }
      case .cancel(let call):
        cancelled.insert(call)
        if model.isWaiting(call) {
          model.leave(call, because: .cancelled)
          mustBeCancelled.insert(call)
        }
      case .finish(let call, _):
        model.finish(call)
      case .race(let waiter, let holder):
        cancelled.insert(waiter)
        guard decided(waiter) else {
          undecided.insert(waiter)
          model.finish(holder)
          break
        }
        if outcomes[waiter] == .cancelled, !startedEver.contains(waiter) {
          model.leave(waiter, because: .cancelled)
        }
        model.finish(holder)
      case .raceTimer(_, let holder):
        model.finish(holder)
      case .callsBackIn(let call, _):
        callingBackIn.insert(call)
      case .calledBackIn(let call, let outcome):
        callingBackIn.remove(call)
        if outcome != .reentrantCall {
          failure = (
            .reentrance,
            "C\(call)'s block called back into its own scheduler, and the call "
              + (outcome.map { "\($0)" } ?? "was queued behind the block it came from")
          )
        }
      case .started(let call):
        started.insert(call)
        let access = accesses[call] ?? .write
        if let writer = running.first(where: { $0.value == .write })?.key {
          failure = (
            .alone, "C\(call) (a \(access.rawValue)) started while the write C\(writer) ran"
          )
        } else if access == .write, let other = running.keys.min() {
          failure = (.alone, "the write C\(call) started while C\(other) ran")
        } else if undecided.isEmpty, let (rule, because) = model.whyNotRunning(call) {
          failure = (rule, "C\(call) started, but \(because)")
        }
        running[call] = access
      case .ended(let call):
        running[call] = nil
      case .returned(let call, let outcome):
        returned[call] = outcome
        undecided.remove(call)
        if let observed = Self.wrongOutcome(
          call, outcome, ran: started.contains(call), cancelled: cancelled.contains(call),
          mustBeCancelled: mustBeCancelled.contains(call), deadline: deadlines[call],
          at: entry.time)
        {
          failure = (observed.rule, observed.text)
        }
      }
      if case .started(let call) = entry.event { undecided.remove(call) }
      if let failure { breach = Breach(at: index, rule: failure.rule, observed: failure.observed) }
    }
  }

  /// What the scheduler has yet to do for the history to be complete, with the part of the
  /// rule that asks for it; nil when nothing is missing.
  /// `awaiting` are the calls whose outcome the last step waits for (a capped write whose
  /// limit it waits out, the waiter of a race): until they show it, the step is not done. Other
  /// undecided calls still wait, and count as waiting.
  func unmet(waitingCount: Int, awaiting: Set<Int> = []) -> (rule: SchedulerRule, text: String)? {
    for call in model.running.keys.sorted() where !started.contains(call) {
      // A capped write the model lets in may still show that its timer came first.
      if undecided.contains(call) {
        return (.progress, "the rule lets C\(call) start; it has neither started nor returned")
      }
      return (.progress, "the rule lets C\(call) start, and it has not started")
    }
    for (call, reason) in model.gone.sorted(by: { $0.key < $1.key }) where returned[call] == nil {
      let rule: SchedulerRule =
        switch reason {
        case .finished: .progress
        case .timedOut: .timeOut
        case .cancelled, .cancelledBeforeAsking: .leaving
        }
      return (rule, "C\(call) \(reason.rawValue), and its call has not returned")
    }
    if let call = mustBeCancelled.filter({ returned[$0] == nil }).min() {
      return (.leaving, "C\(call) was cancelled before its turn, and its call has not returned")
    }
    if let call = undecided.intersection(awaiting).min() {
      return (.progress, "C\(call) has neither started nor returned")
    }
    if let call = callingBackIn.min() {
      return (.reentrance, "C\(call)'s call back into its own scheduler has not ended")
    }
    if waitingCount != model.waiting.count {
      return (
        .progress,
        "waitingCount says \(waitingCount), and \(model.waiting.count) caller(s) wait: "
          + model.waiting.map { "C\($0.call)" }.joined(separator: ", ")
      )
    }
    return nil
  }

  /// What is wrong with how `call` ended, or nil.
  private static func wrongOutcome(
    _ call: Int, _ outcome: CallOutcome, ran: Bool, cancelled: Bool, mustBeCancelled: Bool,
    deadline: ContinuousClock.Instant?, at time: ContinuousClock.Instant
  ) -> (rule: SchedulerRule, text: String)? {
    if ran {
      switch outcome {
      case .ran, .threwItsBlocksError: return nil
      case .timedOut: return (.timeOut, "C\(call) ran its block, then \(outcome)")
      default: return (.outcome, "C\(call) ran its block, then \(outcome)")
      }
    }
    if mustBeCancelled, outcome != .cancelled {
      return (.leaving, "C\(call) was cancelled before its turn, and \(outcome)")
    }
    switch outcome {
    case .cancelled where !cancelled:
      return (.leaving, "C\(call) threw CancellationError, but nobody cancelled it")
    case .cancelled: return nil
    case .timedOut:
      guard let deadline else {
        return (.timeOut, "C\(call) had no limit, and \(outcome)")
      }
      if time < deadline {
        return (.timeOut, "C\(call) \(outcome) \(deadline - time) before its limit was up")
      }
      return nil
    default:
      return (.outcome, "C\(call) \(outcome) without its block running")
    }
  }
}
