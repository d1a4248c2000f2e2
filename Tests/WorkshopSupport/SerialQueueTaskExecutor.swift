import Dispatch
import Synchronization

/// A task executor on a serial Dispatch queue of its own (SE-0417): a task that prefers it runs
/// its nonisolated code, and the code of the default actors it calls, on that queue, one job at
/// a time, off the cooperative pool. A job that blocks holds the queue, which is what a check of
/// a caller's thread needs; and the executor knows which thread runs its job, so a check can ask
/// the kernel whether that job waits blocked (``parkedJob``) instead of waiting for it.
public final class SerialQueueTaskExecutor: TaskExecutor {
  private let queue: DispatchQueue
  /// The job that runs now, numbered, and its thread.
  private let running = Mutex<(next: Int, now: (job: Int, thread: KernelThread)?)>((1, nil))

  public init(_ label: String) {
    queue = DispatchQueue(label: label)
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { [self] in
      running.withLock { running in
        running.now = (running.next, .current)
        running.next += 1
      }
      job.runSynchronously(on: executor)
      running.withLock { $0.now = nil }
    }
  }

  /// The job that runs on the queue now, when the kernel has its thread waiting: it waits
  /// blocked (a semaphore, a lock, a condition) inside the job. Nil while no job runs, while the
  /// job runs or is ready to, and where the kernel cannot be asked. A lock held for a moment
  /// parks a thread too: ``ParkedJobWatch`` tells a wait from such a moment.
  public var parkedJob: Int? {
    guard let (job, thread) = running.withLock({ $0.now }), thread.isParked == true else {
      return nil
    }
    // Still the same job: it was parked inside it, not after it returned.
    return running.withLock { $0.now?.job } == job ? job : nil
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

  /// Waits until `holding` (from ``hold(until:)``) opens, and returns nil; or, as soon as a job
  /// of the queue is seen waiting blocked in the kernel (``ParkedJobWatch``), which the hold
  /// cannot begin before, says what the thread was ("parked in the kernel …"). `bound` is only
  /// for a platform whose kernel is not asked.
  public func holdBegins(_ holding: Gate, within bound: Duration) -> String? {
    let watch = ParkedJobWatch()
    let deadline = ContinuousClock.now + bound * timeScale
    while !holding.wait(timeout: ParkedJobWatch.look) {
      if watch.blocked(self) { return "parked in the kernel, inside the caller's job" }
      if ContinuousClock.now >= deadline { return "busy for \(bound)" }
    }
    return nil
  }
}

/// Tells a job that waits blocked from one that took a contended lock for a moment: the same job
/// seen parked at every look for ``settle``. A caller that only passes through a lock is parked
/// for microseconds; one that waits for a block the check holds stays parked until it ends.
public final class ParkedJobWatch: Sendable {
  /// How long one job must stay parked, and how often a waiter looks.
  public static let settle: Duration = .milliseconds(40)
  public static let look: Duration = .milliseconds(2)

  private let since = Mutex<(job: Int, at: ContinuousClock.Instant)?>(nil)

  public init() {}

  /// Whether `executor`'s running job has been parked at every look since at least `settle`.
  public func blocked(_ executor: SerialQueueTaskExecutor) -> Bool {
    blocked(parked: executor.parkedJob)
  }

  /// Whether `thread` has been parked at every look since at least `settle`, for a thread that
  /// runs one piece of work the watcher waits for.
  public func blocked(_ thread: KernelThread) -> Bool {
    blocked(parked: thread.isParked == true ? 0 : nil)
  }

  /// `parked`: what is parked at this look (a job's number), nil when nothing is.
  private func blocked(parked job: Int?) -> Bool {
    let now = ContinuousClock.now
    return since.withLock { since in
      guard let job else {
        since = nil
        return false
      }
      let first = since?.job == job ? since?.at ?? now : now
      since = (job, first)
      return now - first >= Self.settle
    }
  }
}
