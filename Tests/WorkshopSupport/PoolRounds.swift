import Synchronization

/// Counts round trips of the cooperative pool: each look sends a small job at each priority a
/// caller may have, unless the last ones have not all run yet, and reads how many rounds have
/// run in full.
///
/// A bounded wait counts its time, and Step 5's stall sighting its looks, only over looks
/// between which a round ran. Jobs of one priority reach the pool in order, so a caller resumed,
/// or sent, before a round that has since run got a thread before it: a caller that merely
/// waits for a thread on a loaded machine is not taken for one that waits for good, and while
/// the pool is held or full, no round runs and nothing counts. Seen: at the start of the verify
/// run, hundreds of checks and the compilers of the probes keep a new job of the pool waiting
/// for 9 to 12 s, every run.
///
/// One job per priority, because priorities do not share threads everywhere: on Linux each has
/// threads of its own, and a low-priority job runs while every medium-priority thread is held
/// (seen: at once, beside two medium jobs blocked for 2 s). A single low-priority job proved
/// nothing about the callers there.
public final class PoolRounds: Sendable {
  private let state = Mutex((rounds: 0, outstanding: 0))

  public init() {}

  /// Sends a round if none is on its way; how many rounds have run in full.
  public func tick() -> Int {
    let priorities = Set([TaskPriority.low, .medium, .high, Task.currentPriority].map(\.rawValue))
    let (send, rounds) = state.withLock { state -> (Bool, Int) in
      let send = state.outstanding == 0
      if send { state.outstanding = priorities.count }
      return (send, state.rounds)
    }
    guard send else { return rounds }
    for priority in priorities {
      Task.detached(priority: TaskPriority(rawValue: priority)) {
        self.state.withLock { state in
          state.outstanding -= 1
          if state.outstanding == 0 { state.rounds += 1 }
        }
      }
    }
    return rounds
  }
}
