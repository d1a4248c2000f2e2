import ManagedObjectCore
import Synchronization

/// The saves of a container while a check watches it: which context saved, during which call,
/// whether the save ran inside a Swift task, and how many objects it inserted, updated and
/// deleted. A save inside a task is a `performAndWait` on the caller's thread: it blocked a thread
/// of the cooperative pool until the block was done.
///
/// Watch, act, then `stop()`: the log keeps what it saw.
package final class SaveLog: Sendable {
  package struct Save: Sendable, Equatable {
    /// The saving context's name, or "a context" for one without a name.
    package let context: String
    /// The call the check said it was making when the save ran (`during(_:)`), or "".
    package let call: String
    /// Whether the save ran inside a Swift task.
    package let inTask: Bool
    /// How many objects the save inserted, updated and deleted.
    package let inserted: Int
    package let updated: Int
    package let deleted: Int
  }

  private let container: PersistentContainer
  private let state = Mutex((call: "", saves: [Save]()))
  private let token = Mutex<SaveObserverToken?>(nil)

  /// Starts watching `container`'s saves.
  package init(_ container: PersistentContainer) {
    self.container = container
    let observer = container.addSaveObserver { [weak self] change in
      let inTask = withUnsafeCurrentTask { $0 != nil }
      self?.state.withLock {
        $0.saves.append(
          Save(
            context: change.contextName ?? "a context", call: $0.call, inTask: inTask,
            inserted: change.insertedObjectIDs.count, updated: change.updatedObjectIDs.count,
            deleted: change.deletedObjectIDs.count))
      }
    }
    token.withLock { $0 = observer }
  }

  /// Names the call the saves from now on belong to.
  package func during(_ call: String) { state.withLock { $0.call = call } }

  /// Stops watching; what was seen stays. Calling it again does nothing.
  package func stop() {
    if let observer = token.withLock({ token in
      defer { token = nil }
      return token
    }) {
      container.removeSaveObserver(observer)
    }
  }

  /// Every save seen, in order.
  package var saves: [Save] { state.withLock { $0.saves } }

  /// The saves that ran inside a Swift task.
  package var savesInATask: [Save] { saves.filter(\.inTask) }

  deinit { stop() }
}
