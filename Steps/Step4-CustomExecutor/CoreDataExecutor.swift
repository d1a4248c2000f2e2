import Dispatch

/// A serial executor that runs an actor's jobs inside a context's `perform` (the talk's slides
/// 40–56; SE-0392). Installed as an actor's `unownedExecutor`, it puts every job of the actor
/// on the context's queue, so code on the actor may use the context and its objects directly.
nonisolated public final class CoreDataExecutor: SerialExecutor {
  public static let shared = CoreDataExecutor(container: .shared)

  let container: ContextContainer
  /// A serial queue to run jobs on until `enqueue` is written: safe, but not the context's queue.
  private let standIn = DispatchQueue(label: "CoreDataExecutor.standIn")

  public init(container: ContextContainer) {
    self.container = container
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    // TODO: run the job inside the context's perform: `container.perform { … }`. Convert it
    // first, since an ExecutorJob cannot be captured: `let job = UnownedJob(job)`, then
    // `job.runSynchronously(on: asUnownedSerialExecutor())` inside the block. Never block here
    // (no performAndWait): the runtime calls enqueue from any thread, even from another
    // executor's job.
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    standIn.async { job.runSynchronously(on: executor) }
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  // TODO: answer the runtime's isolation questions from the context's queue:
  // `checkIsolated()` stops the program unless `container.isOnContextQueue`, and (Swift 6.2 and
  // later) `isIsolatingCurrentContext()` returns `container.isOnContextQueue`. Then
  // `CoreDataActor.shared.preconditionIsolated()` holds inside a plain `perform` block.
}
