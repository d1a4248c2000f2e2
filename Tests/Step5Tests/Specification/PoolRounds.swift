import Synchronization

/// Counts round trips of the cooperative pool: each look sends a small job to it, unless the
/// last one has not run yet, and reads how many have run.
///
/// A stalled state counts only over looks between which such a job ran (``StallSighting``).
/// A caller resumed, or sent, before a job that has since run got a thread before it: jobs of a
/// priority reach the pool in order, and the job is sent at a low one. So a caller that merely
/// waits for a thread on a loaded machine (seen: a second and more) is not taken for one that
/// waits for good; while the pool is held, the looks see no round trip and nothing counts.
final class PoolRounds: Sendable {
  private let state = Mutex((sent: 0, ran: 0))

  /// Sends a job to the pool if none is on its way; how many have run.
  func tick() -> Int {
    let (send, ran) = state.withLock { state -> (Bool, Int) in
      let send = state.sent == state.ran
      if send { state.sent += 1 }
      return (send, state.ran)
    }
    if send {
      Task.detached(priority: .low) { self.state.withLock { $0.ran += 1 } }
    }
    return ran
  }
}
