import Dispatch
import ManagedObjectCore

/// The executor of one model actor: it runs the actor's jobs inside its own context's `perform`.
///
/// Plainly Sendable, as `SerialExecutor` requires: everything it holds is Sendable, the context
/// included.
public final class ModelActorExecutor: SerialExecutor {
  public let context: ManagedObjectContext
  /// A serial queue to run jobs on until `enqueue` is written: safe, but not the context's queue.
  private let standIn = DispatchQueue(label: "ModelActorExecutor.standIn")

  public init(context: ManagedObjectContext) {
    self.context = context
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    // TODO: run the job inside `context.perform { … }`, as step 4's executor does; never block.
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    standIn.async { job.runSynchronously(on: executor) }
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }
}
