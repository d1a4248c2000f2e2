import Foundation
import ManagedObjectCore
import WorkshopSupport

/// Runs one program against a scheduler, a step at a time, and judges the history it makes.
///
/// After each step it waits, bounded, until the scheduler shows what the model says must have
/// happened (callers started, callers returned, the queue's length), or the history already
/// breaks the rule. The history keeps being recorded while it waits, and is replayed whole each
/// time, so a block that starts late, where it must not, is judged where it happened.
struct ProgramRun {
  let history = SchedulerHistory()
  private let scheduler: any Scheduler
  private let subject: Subject
  private var calls: [Int: ProgramCall] = [:]
  /// Where capped writes run, made for the first.
  private var cappedThread: DedicatedThread?
  private var random: SplitMix64
  /// Where a cancel "as it asks" with a negative delay aims, in nanoseconds after the task
  /// asks, and by how much the aim moves next: handed from one run to the next.
  var cancelAim = 1_000
  var cancelStep = 800

  /// How long one step may take to show its effect. A right answer needs microseconds; this
  /// only keeps a stuck one from holding the run. A caller left waiting for good ends the
  /// settle before it, as soon as the run's state shows it (``StalledRun``).
  static let settleBound: Duration = .seconds(1)
  /// When set (a candidate run while a failing program is shrunk), the moment the run gives up:
  /// a settle still unsettled then ends the run without a verdict, so that shrinking never
  /// waits out a bound past its budget. A candidate given up on is not taken for one that fails.
  var giveUpAt: ContinuousClock.Instant?
  /// True when the run was given up at `giveUpAt`.
  private(set) var gaveUp = false

  init(_ subject: Subject, on container: PersistentContainer, seed: UInt64) {
    self.subject = subject
    scheduler = subject.make(container)
    random = SplitMix64(seed: seed)
  }

  /// Runs `steps`, then lets every block still running end; the first breach, if any.
  mutating func run(_ steps: [ProgramStep]) async -> Breach? {
    defer { abandon() }
    for step in steps {
      guard await perform(step) else { continue }
      if let breach = await settle(awaiting: step.awaits) { return breach }
      if gaveUp { return nil }
    }
    while let call = HistoryReplay(history.all).model.running.keys.min() {
      history.record(.finish(call, throwing: false))
      calls[call]?.command(.finish(throwing: false))
      if let breach = await settle() { return breach }
      if gaveUp { return nil }
    }
    // Last, a write: with every block ended, the slot must be free, whatever happened before.
    let last = (calls.keys.max() ?? 0) + 1
    for step in [ProgramStep.ask(last, .write), .finish(last, throwing: false)] {
      guard await perform(step) else { continue }
      if let breach = await settle(awaiting: step.awaits) { return breach }
      if gaveUp { return nil }
    }
    return nil
  }

  /// Does `step` if it means something now; false when it was skipped.
  private mutating func perform(_ step: ProgramStep) async -> Bool {
    let model = HistoryReplay(history.all).model
    switch step {
    case .ask(let number, let access):
      guard calls[number] == nil else { return false }
      history.record(.asks(number, access, limit: nil))
      send(number, access)
    case .askCapped(let number, let limit):
      guard calls[number] == nil else { return false }
      history.record(.asks(number, .write, limit: limit))
      send(number, .write, limit: limit)
    case .askCancelled(let number, let access, let early, let delay):
      guard calls[number] == nil, early || !model.wouldStart(access) else { return false }
      history.record(.asksCancelled(number, access, early: early))
      let call = ProgramCall(number)
      calls[number] = call
      let (scheduler, subject, history) = (self.scheduler, self.subject, self.history)
      // Aimed at a moment after the task asks: a fixed one, or (a negative delay) the run's
      // staircase, which moves the aim earlier after a cancel that found the caller already
      // queued and later after one that did not, so that the cancels gather at the moment the
      // caller joins the queue, just after the scheduler's look at `Task.isCancelled`, wherever
      // load puts it. On a thread of its own, since it spins, and the task is made there, so that the
      // spin is already running when the task asks.
      let nanoseconds = delay < 0 ? cancelAim : delay
      let queuedBefore = scheduler.waitingCount
      let late =
        (await onThreadOfItsOwn {
          call.send(access, early: early, to: scheduler, subject: subject, history: history)
          var late = false
          if !early {
            // A spin, not a wait: waking from a wait takes longer than the window it aims at.
            // Short: a task that has not asked within 2 ms is cancelled before it asks, and a
            // longer spin would take a core from the tasks the whole run waits for.
            let deadline = ContinuousClock.now + .milliseconds(2)
            while call.askedAt == nil, ContinuousClock.now < deadline {}
            let aim = (call.askedAt ?? .now) + .nanoseconds(nanoseconds)
            while ContinuousClock.now < aim {}
            late = scheduler.waitingCount > queuedBefore
          }
          call.cancel()
          return late
        })
      if delay < 0 {
        cancelAim = max(cancelAim + (late ? -cancelStep : cancelStep), 0)
        cancelStep = max(cancelStep * 3 / 4, 50)
      }
    case .cancel(let number):
      guard let call = calls[number], model.isWaiting(number) || model.isRunning(number) else {
        return false
      }
      history.record(.cancel(number))
      call.cancel()
    case .finish(let number, let throwing):
      guard model.isRunning(number), let call = calls[number] else { return false }
      history.record(.finish(number, throwing: throwing))
      call.command(.finish(throwing: throwing))
    case .race(let waiter, let holder):
      guard model.isRunning(holder), model.waiting.first?.call == waiter,
        let waiting = calls[waiter], let running = calls[holder]
      else { return false }
      history.record(.race(cancel: waiter, finish: holder))
      let (delay, finishFirst) = (Int(random.next() % 6_000), random.next() % 2 == 0)
      await onThreadOfItsOwn {
        if finishFirst {
          running.command(.finish(throwing: false))
          spin(delay)
          waiting.cancel()
        } else {
          waiting.cancel()
          spin(delay / 20)
          running.command(.finish(throwing: false))
        }
      }
    case .raceTimer(let capped, let holder, let offset):
      guard model.isRunning(holder), let running = calls[holder],
        let deadline = deadline(of: capped)
      else { return false }
      // The block is let go `offset` from the capped write's limit: sometimes the grant
      // wins, sometimes the timer, sometimes both at once. A spin, not a sleep: the moment is
      // the point.
      let history = self.history
      await onThreadOfItsOwn {
        while ContinuousClock.now < deadline + offset {}
        history.record(.raceTimer(capped: capped, finish: holder))
        running.command(.finish(throwing: false))
      }
    case .grantAfterTimer(let capped, let holder):
      guard model.isRunning(holder), model.isWaiting(capped), let running = calls[holder],
        let thread = cappedThread
      else { return false }
      let (history, scheduler) = (self.history, self.scheduler)
      thread.beforeNextJob {
        history.record(.raceTimer(capped: capped, finish: holder))
        running.command(.finish(throwing: false))
        // Until the slot is handed on (or the caller has left): its next job runs after that.
        waitOnThisThread(within: Self.settleBound) { scheduler.waitingCount == 0 }
      }
    case .expire(let number):
      return calls[number] != nil
    case .callBackIn(let number, let access):
      guard model.isRunning(number), let call = calls[number] else { return false }
      history.record(.callsBackIn(number, access))
      call.command(.callBackIn(access))
    }
    return true
  }

  @discardableResult
  private mutating func send(
    _ number: Int, _ access: Access, limit: Duration? = nil, early: Bool = false
  ) -> ProgramCall {
    let call = ProgramCall(number)
    calls[number] = call
    var executor: DedicatedThread?
    if limit != nil {
      executor = cappedThread ?? DedicatedThread(name: "workshop.step5.capped")
      cappedThread = executor
    }
    call.send(
      access, limit: limit, early: early, to: scheduler, subject: subject, history: history,
      executor: executor)
    return call
  }

  /// When the capped write `number` asked, plus its limit.
  private func deadline(of number: Int) -> ContinuousClock.Instant? {
    for entry in history.all {
      if case .asks(number, _, let limit?) = entry.event { return entry.time + limit }
    }
    return nil
  }

  /// Waits until the scheduler has done what the model says it must, or the history breaks
  /// the rule; a breach either way.
  ///
  /// It ends early, with what it saw, when the run shows a caller waiting for good
  /// (``StalledRun``), seen the same for a while (``StallSighting``): the bound stays only for
  /// what no state shows.
  private mutating func settle(awaiting: Set<Int> = []) async -> Breach? {
    let (history, scheduler) = (self.history, self.scheduler)
    // The bound counts the time the run could look, not the time the process was kept from
    // running (a loaded machine, the thread pool busy elsewhere): a look that comes much later
    // than asked spends only a few milliseconds of it. A stuck scheduler is looked at every
    // millisecond and runs the bound out; a starved one gets the time it was starved of.
    var left = Self.settleBound * timeScale
    var (looks, last, extended) = (0, ContinuousClock.now, false)
    // Replayed again only when something new was recorded: most looks see nothing new.
    var entries = history.all
    var replay = HistoryReplay(entries)
    var sighting = StallSighting<StalledRun>()
    while left > .zero {
      if history.count != replay.length {
        entries = history.all
        replay = HistoryReplay(entries)
      }
      if let breach = replay.breach { return breach }
      // Settled: what happens next (a timer firing a moment later) is judged by the next
      // step's settle, not taken for this one's failure, as a look taken again here would.
      let waiting = scheduler.waitingCount
      guard let unmet = replay.unmet(waitingCount: waiting, awaiting: awaiting) else {
        return nil
      }
      // The count read between two readings of the history that agree: nothing happened in
      // between.
      let still = history.count == entries.count
      if let stalled = sighting.look(
        still ? StalledRun(entries, waitingCount: waiting) : nil)
      {
        return Breach(at: nil, rule: unmet.rule, observed: unmet.text + ": " + stalled)
      }
      if let giveUpAt, ContinuousClock.now >= giveUpAt {
        gaveUp = true
        return nil
      }
      looks += 1
      if looks < 200 {
        await Task.yield()
      } else {
        // A bounded wait's poll interval, not a race provoked: the loop waits for the state.
        try? await Task.sleep(for: .milliseconds(1))
      }
      let now = ContinuousClock.now
      left -= min(now - last, .milliseconds(5))
      last = now
      if left <= .zero, !extended, scheduler.waitingCount < replay.model.waiting.count {
        // Someone has left the queue and not yet returned: on a loaded machine a caller's
        // task has been seen to wait a second and more for a thread after it was resumed
        // (and then return, as it must). A waiter taken out and never resumed fails after
        // this longer wait.
        left = Self.settleBound * 4 * timeScale
        extended = true
      }
    }
    replay = HistoryReplay(history.all)
    if let breach = replay.breach { return breach }
    if let unmet = replay.unmet(waitingCount: scheduler.waitingCount, awaiting: awaiting) {
      return Breach(at: nil, rule: unmet.rule, observed: unmet.text)
    }
    return nil
  }

  /// Lets every block end, so that nothing of the run outlives it.
  private func abandon() {
    for call in calls.values { call.command(.finish(throwing: false)) }
    cappedThread?.stop()
  }

}

/// Keeps the thread busy for `iterations` turns of a loop: a delay too short for a clock, to
/// move one event against another by a little.
func spin(_ iterations: Int) {
  var sink = 0
  for index in 0..<iterations { sink &+= index }
  withExtendedLifetime(sink) {}
}
