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
    /// Whether that task was the caller's: the one that made the log, or last named a call
    /// (`during(_:)`). Another is a task the code under test started (`Task.detached`,
    /// `Task { … }`), awaited or not.
    package let inCallersTask: Bool

    /// Where the save ran, for an Observed line: "inside the caller's Swift task", or inside
    /// another one.
    package var place: String {
      guard inTask else { return "on the context's queue, outside any Swift task" }
      return inCallersTask
        ? "inside the caller's Swift task"
        : "inside a Swift task other than the caller's, one the code started for it "
          + "(a `Task.detached` or a `Task { … }`)"
    }
    /// How many objects the save inserted, updated and deleted.
    package let inserted: Int
    package let updated: Int
    package let deleted: Int
  }

  private let container: PersistentContainer
  private let state = Mutex((call: "", caller: currentTask(), saves: [Save]()))
  private let token = Mutex<SaveObserverToken?>(nil)

  /// Starts watching `container`'s saves.
  package init(_ container: PersistentContainer) {
    self.container = container
    let observer = container.addSaveObserver { [weak self] change in
      let task = currentTask()
      self?.state.withLock {
        $0.saves.append(
          Save(
            context: change.contextName ?? "a context", call: $0.call, inTask: task != nil,
            inCallersTask: task != nil && task == $0.caller,
            inserted: change.insertedObjectIDs.count, updated: change.updatedObjectIDs.count,
            deleted: change.deletedObjectIDs.count))
      }
    }
    token.withLock { $0 = observer }
  }

  /// Names the call the saves from now on belong to, made from the current task.
  package func during(_ call: String) {
    let caller = currentTask()
    state.withLock {
      $0.call = call
      $0.caller = caller
    }
  }

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

/// The identity of the current Swift task while it lives, or nil outside any task.
package func currentTask() -> Int? {
  withUnsafeCurrentTask { $0?.hashValue }
}
