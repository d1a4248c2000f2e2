/// Workshop scaffolding, not part of Core Data: how a starter says that a stretch task has not
/// been started.
///
/// Every step has a stretch task for those who finish early, a `// TODO: stretch — …` in its
/// starter, and its checks are optional until the attendee starts it. The starter's stub for the
/// task calls ``notStarted(_:file:)``, and nothing else in the workshop does: the solutions never
/// call it, and starting the task means deleting the call. So the exam can tell the two apart:
/// while the stub still calls it, a failing stretch check says "not done yet" and the run passes;
/// once the call is gone, the check judges the answer like any other, and a wrong one fails with
/// its lesson.
///
/// The call does nothing else: it does not throw, stop the program or print, so the stub behaves
/// as if it were empty. Outside the exam nobody listens to it.
public enum StretchTask {
  /// Says that the stretch task of the calling stub has not been started. Only a starter's stub
  /// calls it; delete the call when you start the task.
  public static func notStarted(_ task: String = #function, file: String = #fileID) {
    observer?.record("\(task) in \(file)")
  }

  /// The listener the exam binds around a check: it sees the calls made while that check runs,
  /// in its child tasks and in the unstructured tasks they start, and no other check's calls.
  @TaskLocal package static var observer: Observer?

  /// Records the calls of ``StretchTask/notStarted(_:file:)`` it sees.
  package final class Observer: Sendable {
    private let seen = Locked<[String]>([])
    private let onCall: @Sendable (String) -> Void

    /// `onCall` is told of each call as it happens: a child process that may stop right after
    /// the call (an exit test) passes one that prints it.
    package init(onCall: @escaping @Sendable (String) -> Void = { _ in }) {
      self.onCall = onCall
    }

    /// The calls seen so far, oldest first: the stub's function and file,
    /// `delete() in Step1/CoreDataController.swift`.
    package var calls: [String] { seen.withLock { $0 } }

    package func record(_ call: String) {
      seen.withLock { $0.append(call) }
      onCall(call)
    }
  }
}
