import ManagedObjectCore

/// The executor of one model actor: it runs the actor's jobs inside its own context's `perform`.
///
/// Step 4's executor, one per context instead of one for the app. Its `enqueue` comes complete in
/// this step; what you write is the part that makes it per instance: the context each actor owns,
/// and the `unownedExecutor` that hands the runtime this instance's executor.
///
/// Plainly Sendable, as `SerialExecutor` requires: everything it holds is Sendable, the context
/// included.
public final class ModelActorExecutor: SerialExecutor {
  public let context: ManagedObjectContext

  public init(context: ManagedObjectContext) {
    self.context = context
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    // Never block here (no performAndWait): model actors call each other, and the runtime calls
    // enqueue from any thread, even from another executor's job.
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    context.perform { job.runSynchronously(on: executor) }
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  public func checkIsolated() {
    precondition(context.isInPerformScope, "a model actor's code must run on its context's queue")
  }

  public func isIsolatingCurrentContext() -> Bool? {
    context.isInPerformScope
  }
}
