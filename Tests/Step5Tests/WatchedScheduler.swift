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

  /// What shows that a caller waits for a slot it can never get, or waits where the queue does
  /// not count it, or that the queue keeps callers it already resumed; nil while something can
  /// still happen (``StallReading`` says which states those are, and why a right answer never
  /// stays in one). The state is read between two readings of the calls that agree (nothing
  /// happened in between), and must be seen the same for a while, across round trips of the
  /// cooperative pool (``StallSighting``), before it counts: it is asked by the polls of bounded
  /// waits, and waits for nothing itself.
  func stalled() -> String? {
    let before = calls.withLock { $0 }
    let waiting = base.waitingCount
    let after = calls.withLock { $0.events }
    let state = after == before.events ? StalledState(before, waiting: waiting) : nil
    return sighting.withLock { $0.look(state) }
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

/// A state in which a caller waits for a slot it can never get, or waits where the queue does
/// not count it (``StallReading``): what was seen, in words.
private struct StalledState: StalledPicture {
  let observed: String
  /// How many events the calls had: the same state seen again has had none since.
  let events: Int

  init?(_ calls: Calls, waiting: Int) {
    events = calls.events
    let live = calls.all.filter { $0.phase != .returned }.map {
      StallReading.Caller(
        name: nil, access: $0.access, cancelled: $0.cancelled, started: $0.phase != .asked,
        ended: $0.phase == .ended)
    }
    guard let observed = StallReading.observed(live, waitingCount: waiting) else { return nil }
    self.observed = observed
  }
}
