import ManagedObjectCore
import Step4
import Step4Solution
import Synchronization

// A second global actor per side, on an executor of that side's type with a context of its own.
// `Task { @YourSpareActor in … }` calls the executor's `enqueue` before `Task.init` returns
// (SE-0431: a task starts on its closure's actor), so a check knows the moment a job was handed
// over, and can ask the context's own queue what happened to it, instead of waiting.

@globalActor
actor YourSpareActor {
  static let shared = YourSpareActor()
  static let container = Step4.ContextContainer(name: "spare yours")
  static let executor = Step4.CoreDataExecutor(container: container)

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    Self.executor.asUnownedSerialExecutor()
  }
}

@globalActor
actor SolutionSpareActor {
  static let shared = SolutionSpareActor()
  static let container = Step4Solution.ContextContainer(name: "spare solution")
  static let executor = Step4Solution.CoreDataExecutor(container: container)

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    Self.executor.asUnownedSerialExecutor()
  }
}

/// Both sides' `ContextContainer`, as the checks use it.
protocol SideContainer: Sendable {
  var persistentContainer: PersistentContainer { get }
  func perform(_ block: @escaping @Sendable () -> Void)
  var isOnContextQueue: Bool { get }
}

extension Step4.ContextContainer: SideContainer {}
extension Step4Solution.ContextContainer: SideContainer {}

/// An actor whose executor is of the side's type, and the context that executor runs on.
struct ActorAndContext: Sendable {
  let actor: any Actor
  let executor: any SerialExecutor
  let container: any SideContainer
  /// Starts a task on `actor`: its executor's `enqueue` has run when this returns.
  let startTask: @Sendable (@escaping @Sendable () -> Void) -> Void

  static let yourSpare = ActorAndContext(
    actor: YourSpareActor.shared, executor: YourSpareActor.executor,
    container: YourSpareActor.container,
    startTask: { body in Task { @YourSpareActor in body() } })

  static let solutionSpare = ActorAndContext(
    actor: SolutionSpareActor.shared, executor: SolutionSpareActor.executor,
    container: SolutionSpareActor.container,
    startTask: { body in Task { @SolutionSpareActor in body() } })

  static let yourCoreDataActor = ActorAndContext(
    actor: Step4.CoreDataActor.shared, executor: Step4.CoreDataExecutor.shared,
    container: Step4.ContextContainer.shared,
    startTask: { body in Task { @Step4.CoreDataActor in body() } })

  static let solutionCoreDataActor = ActorAndContext(
    actor: Step4Solution.CoreDataActor.shared, executor: Step4Solution.CoreDataExecutor.shared,
    container: Step4Solution.ContextContainer.shared,
    startTask: { body in Task { @Step4Solution.CoreDataActor in body() } })
}

/// A flag that any thread may set and read.
final class Flag: Sendable {
  private let value = Mutex(false)

  func set() { value.withLock { $0 = true } }
  var isSet: Bool { value.withLock { $0 } }
}

/// Whether two unowned executor references name the same executor. `UnownedSerialExecutor` has
/// no `==`; it is a frozen, bitwise-copyable pair of words (the executor and its conformance),
/// which the standard library itself compares bit for bit for `UnownedTaskExecutor`.
func sameExecutor(_ one: UnownedSerialExecutor, _ other: UnownedSerialExecutor) -> Bool {
  withUnsafeBytes(of: one) { first in
    withUnsafeBytes(of: other) { second in first.elementsEqual(second) }
  }
}
