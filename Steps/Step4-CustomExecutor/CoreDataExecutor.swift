import ManagedObjectCore

/// A serial executor that runs an actor's jobs inside a context's `perform` (2023 talk, slides
/// 45–48), a custom executor after SE-0392. Installed as an actor's `unownedExecutor`, it puts
/// every job of the actor on the context's queue, so code on the actor may use the context and
/// its objects directly.
nonisolated public final class CoreDataExecutor: SerialExecutor {
  public static let shared = CoreDataExecutor(container: .shared)

  let container: ContextContainer

  public init(container: ContextContainer) {
    self.container = container
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    // TODO: hand the job over to the context and return at once. The runtime gives you a job it
    // expects to see run exactly once, inside the container's perform, on this executor. The
    // job as it arrives cannot be kept by an escaping closure: turn it into its unowned,
    // Sendable form first. Never wait here for the job to finish: the runtime calls enqueue
    // from any thread, even from a job of another executor. Until you write this, the job is
    // dropped, and whoever awaits it waits forever (the checks give up after a few seconds).
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  // TODO: answer the runtime's two isolation questions, "is the current code isolated to you?",
  // from the context's perform scope, never from the thread: `checkIsolated()` returns when the
  // answer is yes and stops the program with `offTheQueue()` as its message when it is no; with
  // Swift 6.2 and later, `isIsolatingCurrentContext()` gives the answer as an optional Bool
  // (SE-0471). Then `CoreDataActor.shared.preconditionIsolated()` holds inside a plain perform
  // block.

  /// What a crash off the queue says: which context's queue the code should have been on.
  private func offTheQueue() -> String {
    // TODO: stretch — make this message name the context whose queue the code should be on (an
    // app may have several), by the name the container gave it.
    // The call below tells the checks you have not started: delete it when you do.
    StretchTask.notStarted()
    return "Code isolated to this executor must run on its context's queue, inside its perform."
  }
}
