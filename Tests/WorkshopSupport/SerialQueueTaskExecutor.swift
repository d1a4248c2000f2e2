import Dispatch

/// A task executor on a serial Dispatch queue of its own (SE-0417): a task that prefers it runs
/// its nonisolated code, and the code of the default actors it calls, on that queue, one job at
/// a time, off the cooperative pool. A job that blocks holds the queue, which is what a check of
/// a caller's thread needs.
public final class SerialQueueTaskExecutor: TaskExecutor {
  private let queue: DispatchQueue

  public init(_ label: String) {
    queue = DispatchQueue(label: label)
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }

  /// Runs nothing else until `gate` opens (bounded), for a check that keeps a resumed caller
  /// from going on. The gate it returns opens when the hold begins: once every job enqueued
  /// before it is done. Until then a caller may still be on its way to suspending, and a task
  /// resumed before it has suspended goes on inline, in that job, ahead of the hold.
  @discardableResult
  public func hold(until gate: Gate) -> Gate {
    let holding = Gate()
    queue.async {
      holding.open()
      gate.wait(timeout: defaultWaitTimeout)
    }
    return holding
  }
}
