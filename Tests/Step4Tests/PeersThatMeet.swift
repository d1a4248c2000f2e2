import Synchronization
import WorkshopSupport

/// An actor with an executor of either side's type, for two actors that call each other.
actor Peer {
  private let executor: any SerialExecutor
  /// The context the executor runs its jobs on.
  nonisolated let container: any SideContainer
  private var partner: Peer?

  init(_ executorAndContext: (any SerialExecutor, any SideContainer)) {
    (executor, container) = executorAndContext
  }

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  func pair(with partner: Peer) {
    self.partner = partner
  }

  /// Waits until the partner's job runs too, then calls the partner: both jobs hold their
  /// executors while they call each other.
  func callPartner(meeting: Meeting) async -> Bool {
    let met = meeting.arriveAndWait(partnerContext: partner?.container)
    _ = await partner?.answer()
    return met
  }

  func answer() -> Int { 1 }
}

/// Where two jobs of two peers meet, if they run at the same time. The one that comes first
/// waits for the other only while the other can still come: once both jobs have been handed to
/// their executors (``handedOver()``), a block queued after that on the partner's context tells.
/// A job handed to that context's perform is ahead of the block in its serial queue, and its
/// code arrives here before the block can run; so the block running first, and the partner not
/// here, shows that its job is not on its context's queue (an executor that keeps it elsewhere,
/// or runs it after ours), and waiting longer would only wait out the bound.
final class Meeting: Sendable {
  private let state = Mutex<(arrived: Int, gaveUp: Bool)>((0, false))
  private let together = Gate()
  private let bothHandedOver = Gate()

  /// Both peers' jobs have been handed to their executors' `enqueue`, and it returned.
  func handedOver() { bothHandedOver.open() }

  /// True when the other job came too; false when it was seen not to be on its way, after the
  /// bound (only for a slow machine), or when the other one had already given up.
  func arriveAndWait(partnerContext: (any SideContainer)?) -> Bool {
    let (first, otherGaveUp) = state.withLock { state in
      state.arrived += 1
      return (state.arrived == 1, state.gaveUp)
    }
    guard first else {
      together.open()
      return !otherGaveUp
    }
    let probed = Flag()
    var probing = false
    let deadline = ContinuousClock.now + .seconds(10) * timeScale
    while !together.wait(timeout: .milliseconds(2)) {
      if !probing, let partnerContext, bothHandedOver.isOpen {
        probing = true
        partnerContext.perform { probed.set() }
      }
      guard probed.isSet || ContinuousClock.now >= deadline else { continue }
      // Under the lock: a partner that arrived meanwhile is met, not given up on.
      let gaveUp = state.withLock { state in
        state.gaveUp = state.arrived < 2
        return state.gaveUp
      }
      return !gaveUp
    }
    return true
  }
}
