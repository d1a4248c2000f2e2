import Dispatch

/// Runs each job of the tasks that prefer it on a serial Dispatch queue of its own, which gets a
/// thread of its own while others block, instead of on the cooperative pool (as many threads as
/// the machine has cores: two here).
public final class OffThePoolExecutor: TaskExecutor {
  public static let shared = OffThePoolExecutor()

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    DispatchQueue(label: "workshop.off-the-pool").async {
      job.runSynchronously(on: executor)
    }
  }
}

/// Runs an exit test (`#expect(processExitsWith:)`) off the cooperative pool.
///
/// Swift Testing's parent side reads the child's standard output, standard error and back
/// channel with blocking reads, each in a child task of its own, for as long as the child lives.
/// On the pool, one exit test holds both threads of a 2-core machine: every other check of the
/// run stops while it lives, and bounded waits elsewhere ran out on correct code (seen in CI and
/// with the machine loaded). The child tasks inherit this task's executor preference (SE-0417),
/// so the reads block threads of their own.
@discardableResult
public func withExitTestOffThePool<Value>(
  _ exitTest: () async throws -> Value
) async rethrows -> Value {
  try await withTaskExecutorPreference(OffThePoolExecutor.shared, operation: exitTest)
}
