import Foundation
import Synchronization

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

  /// Ends the thread once the jobs already enqueued have run.
  func stop() {
    condition.lock()
    jobs.withLock { $0.stopped = true }
    condition.signal()
    condition.unlock()
  }

  private func run() {
    while let job = next() {
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }

  private func next() -> UnownedJob? {
    condition.lock()
    defer { condition.unlock() }
    while true {
      let (job, stopped) = jobs.withLock { jobs in
        (jobs.waiting.isEmpty ? nil : jobs.waiting.removeFirst(), jobs.stopped)
      }
      if let job { return job }
      if stopped { return nil }
      condition.wait()
    }
  }
}
