import Foundation
import ManagedObjectCore
import Synchronization
import WorkshopSupport

/// A scheduler with every call to it followed: when it asked, whether its task was cancelled,
/// when its block started and ended, when it returned. Beside the scheduler's own
/// `waitingCount`, that tells when a caller waits for a slot that nobody can give it any more
/// (``stalled()``), so that a check ends at once with what it saw instead of waiting out its
/// bound: a wrong answer that leaves a caller waiting forever fails in a fraction of a second.
///
/// The scenario checks run through it (``Step5Tests/setUp(_:)``); the history checks keep the
/// scheduler bare, since their races are aimed at microseconds, and judge from their own history.
final class WatchedScheduler: Scheduler {
  private let base: any Scheduler
  private let calls = Mutex(Calls())
  private let sighting = Mutex(StallSighting<StalledState>())

  init(_ base: any Scheduler) {
    self.base = base
  }

  var waitingCount: Int { base.waitingCount }

  func executeRead<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    try await followed(.read, block) { try await self.base.executeRead($0) }
  }

  func executeWrite<Result: Sendable>(
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    try await followed(.write, block) { try await self.base.executeWrite($0) }
  }

  func executeWrite<Result: Sendable>(
    waitingAtMost limit: Duration,
    _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result
  ) async throws -> Result {
    try await followed(.write, block) {
      try await self.base.executeWrite(waitingAtMost: limit, $0)
    }
  }

  /// One call: recorded as it asks, starts, ends and returns.
  private func followed<Result: Sendable>(
    _ access: Access, _ block: @escaping @Sendable (ManagedObjectContext) throws -> Result,
    _ call: (@escaping @Sendable (ManagedObjectContext) throws -> Result) async throws -> Result
  ) async throws -> Result {
    let cancelled = Task.isCancelled
    let id = calls.withLock { $0.ask(access, cancelled: cancelled) }
    defer { calls.withLock { $0.move(id, to: .returned) } }
    return try await withTaskCancellationHandler {
      try await call { context in
        self.calls.withLock { $0.move(id, to: .running) }
        defer { self.calls.withLock { $0.move(id, to: .ended) } }
        return try block(context)
      }
    } onCancel: {
      calls.withLock { $0.cancel(id) }
    }
  }

  /// What shows that a caller waits for a slot it can never get, or that the queue keeps callers
  /// it already resumed, or nil while something can still happen.
  ///
  /// Judged from a state that cannot change by itself: every caller that has not started its
  /// block is counted in the scheduler's own `waitingCount` (none is on its way into the queue,
  /// none was let in and is on its way to its block, none has left the queue and is on its way
  /// back), no block has ended without its caller returning (no release is on its way), and
  /// the slot is free for someone in the queue by the rule: no block runs, or only reads run and
  /// only reads wait; or a caller cancelled before or while it waited is still counted there.
  /// Nothing is then left that would let a waiter in or take it out. A right answer never shows
  /// it: its release, and its cancellation handler, empty the queue's front under its lock
  /// before the caller returns. Or the scheduler counts more callers waiting than have asked and
  /// not started: a right answer takes a caller out of its queue before it resumes it, so the
  /// rest were resumed and left in it. The state is read between two readings of the calls that agree
  /// (nothing happened in between), and must be seen the same for a while, in several looks
  /// (``StallSighting``), before it counts: it is asked by the polls of bounded waits, and
  /// waits for nothing itself.
  func stalled() -> String? {
    let before = calls.withLock { $0 }
    let waiting = base.waitingCount
    let after = calls.withLock { $0.events }
    let state = after == before.events ? StalledState(before, waiting: waiting) : nil
    return sighting.withLock { $0.look(state, scale: timeScale) }
  }
}

/// Where one call is.
private enum Phase: Equatable {
  case asked, running, ended, returned
}

/// Every call's access and phase, and how many events there have been.
private struct Calls {
  struct Call {
    let access: Access
    var phase = Phase.asked
    var cancelled: Bool
  }

  var all: [Call] = []
  var events = 0

  mutating func ask(_ access: Access, cancelled: Bool) -> Int {
    events += 1
    all.append(Call(access: access, cancelled: cancelled))
    return all.count - 1
  }

  mutating func move(_ id: Int, to phase: Phase) {
    events += 1
    all[id].phase = phase
  }

  mutating func cancel(_ id: Int) {
    events += 1
    all[id].cancelled = true
  }
}

/// A state in which a caller waits for a slot it can never get: what was seen, in words.
private struct StalledState: StalledPicture {
  let observed: String
  /// How many events the calls had: the same state seen again has had none since.
  let events: Int

  init?(_ calls: Calls, waiting: Int) {
    events = calls.events
    let live = calls.all.filter { $0.phase != .returned }
    let unstarted = live.filter { $0.phase == .asked }
    let running = live.filter { $0.phase == .running }
    // More callers counted than could be in the queue: a right answer queues only callers that
    // asked here and have not started (each leaves the queue before it is resumed). Those the
    // count holds beyond that were resumed and left in it, until a release resumes them again.
    if waiting > unstarted.count {
      observed =
        "waitingCount said \(waiting), yet only \(unstarted.count) caller(s) had neither started "
        + "nor returned: the queue still counted callers that had been resumed"
      return
    }
    // A block that ended, whose caller has not returned: its release may be on its way.
    guard !live.contains(where: { $0.phase == .ended }) else { return nil }
    // Every caller that has not started is in the queue by the scheduler's own count.
    guard waiting > 0, waiting == unstarted.count else { return nil }
    let waitingWrites = unstarted.filter { $0.access == .write }.count
    let runningWrites = running.filter { $0.access == .write }.count
    let cancelled = unstarted.filter(\.cancelled).count
    let queued = "\(waiting) caller(s) still waited (the scheduler's waitingCount)"
    if running.isEmpty {
      observed =
        "no block was running and every caller whose block had run had returned, yet "
        + "\(queued): the slot was free, and nobody was let in"
    } else if runningWrites == 0, waitingWrites == 0 {
      observed =
        "only reads were running (\(running.count)) and only reads waited, yet \(queued): a "
        + "read may start beside reads, and none was let in"
    } else if cancelled > 0 {
      observed =
        "\(cancelled) caller(s) cancelled before or while they waited were still in the queue: "
        + "\(queued), none of them on its way out"
    } else {
      return nil
    }
  }
}
