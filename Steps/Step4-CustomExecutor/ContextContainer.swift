import ManagedObjectCore

/// Holds the one context that the actor's work uses (the talk's `MOCContainer`), so that it can
/// be reached from anywhere.
///
/// Invariant for `@unchecked Sendable`: `context` is only handed to code that uses it on its
/// queue (inside `perform`) or, from step 4 on, on `CoreDataActor`, whose jobs run there.
public final class ContextContainer: @unchecked Sendable {
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
