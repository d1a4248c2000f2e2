import Foundation
import Synchronization
import WorkshopSupport

/// Runs `work` on a thread of its own, made for it, and returns its result.
///
/// For the spins that aim an event at a moment. A spin on a Dispatch queue holds one of the
/// threads Swift's tasks run on too (on Linux they are one pool, as wide as the machine has
/// cores): two spins at once there, each waiting for a task to reach a point, would wait for a
/// task that has no thread to run on. A thread of its own takes a core, never a place in the
/// pool.
func onThreadOfItsOwn<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: work()) }
    thread.name = "workshop.step5.aim"
    thread.start()
  }
}

/// A task executor with a thread of its own: each caller of the pair rounds asks from one, so
/// that two really ask at once, whatever the cooperative pool is busy with, and a caller that
/// spins or blocks there takes nothing from the pool. `stop()` ends the thread.
final class DedicatedThread: TaskExecutor {
  private let jobs = Mutex(Jobs())
  private let condition = NSCondition()

  private struct Jobs {
    var waiting: [UnownedJob] = []
    var stopped = false
    var beforeNext: (@Sendable () -> Void)?
  }

  init(name: String) {
    let thread = Thread { [self] in run() }
    thread.name = name
    thread.start()
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.withLock { $0.waiting.append(job) }
    condition.signal()
    condition.unlock()
  }

  /// Runs `action` on this thread before the next job, whenever that comes. For a capped
  /// write's task, once it waits in the queue: its next job is its timer's wake-up (a child
  /// task's or a timer task's that inherits the preference), or its own resumption, and
  /// `action` then lands after the timer fired and before the code that acts on it runs.
  func beforeNextJob(_ action: @escaping @Sendable () -> Void) {
    condition.lock()
    jobs.withLock { $0.beforeNext = action }
    condition.unlock()
  }

  /// Ends the thread once the jobs already enqueued have run.
  func stop() {
    condition.lock()
    jobs.withLock { $0.stopped = true }
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while let (job, before) = next() {
      before?()
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  private func next() -> (UnownedJob, (@Sendable () -> Void)?)? {
    condition.lock()
    defer { condition.unlock() }
    while true {
      let (next, stopped) = jobs.withLock {
        jobs -> ((UnownedJob, (@Sendable () -> Void)?)?, Bool) in
        guard !jobs.waiting.isEmpty else { return (nil, jobs.stopped) }
        defer { jobs.beforeNext = nil }
        return ((jobs.waiting.removeFirst(), jobs.beforeNext), jobs.stopped)
      }
      if let next { return next }
      if stopped { return nil }
      condition.wait()
    }
  }
}

/// Blocks the current thread until `condition` holds or `timeout` passes; false if it never
/// held. For a thread of the checks' own (``DedicatedThread``), where a wait holds no thread of
/// the cooperative pool. Looks every 50 µs: a poll interval, not a race provoked.
@discardableResult
func waitOnThisThread(within timeout: Duration, _ condition: () -> Bool) -> Bool {
  let deadline = ContinuousClock.now + timeout * timeScale
  while ContinuousClock.now < deadline {
    if condition() { return true }
    Thread.sleep(forTimeInterval: 0.000_05)
  }
  return condition()
}
