import ManagedObjectCore

/// Holds the one context that the actor's work uses, so that it can be reached from anywhere:
/// the talk's `MOCContainer` (2023 talk, slide 51).
///
/// The talk declares its container `@unchecked Sendable`, because a serial executor must be
/// Sendable and a context was not (2023 talk, slides 50–51). A context is Sendable now (the iOS
/// 26 SDK), so the compiler checks this class like any other: everything in it is Sendable.
/// What it cannot check is where the context is used: inside `perform`, or from step 4 on, on
/// `CoreDataActor`, whose jobs run there. That is the confinement checker's job.
nonisolated public final class ContextContainer: Sendable {
  public static let shared = ContextContainer(name: "CoreDataActor")

  public let persistentContainer: PersistentContainer
  let context: ManagedObjectContext

  public init(name: String) {
    persistentContainer = PersistentContainer(name: name)
    context = persistentContainer.newBackgroundContext()
    context.name = name
  }

  /// True when the current code runs on the context's queue, inside its `perform`.
  public var isOnContextQueue: Bool { context.isInPerformScope }

  /// Runs `block` on the context's queue.
  public func perform(_ block: @escaping @Sendable () -> Void) {
    context.perform(block)
  }
}
