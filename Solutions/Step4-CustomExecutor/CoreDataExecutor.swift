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
    // An ExecutorJob cannot be captured; its unowned form can. And never block here: the runtime
    // calls enqueue from any thread, even from another executor's job, so a performAndWait
    // would deadlock two actors that call each other.
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    container.perform { job.runSynchronously(on: executor) }
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  /// The runtime asks this when it cannot tell by itself, for example in
  /// `CoreDataActor.shared.preconditionIsolated()` inside a plain `perform` block.
  public func checkIsolated() {
    precondition(container.isOnContextQueue, offTheQueue())
  }

  /// The non-crashing form of `checkIsolated()` (SE-0471).
  public func isIsolatingCurrentContext() -> Bool? {
    container.isOnContextQueue
  }

  /// What a crash off the queue says: which context's queue the code should have been on.
  private func offTheQueue() -> String {
    let context = container.context.name ?? "unnamed"
    return "Code isolated to this executor must run on the queue of context '\(context)', inside "
      + "its perform."
  }
}
