import Dispatch
import Foundation

/// The identity of one context's confinement domain.
struct ContextID: Hashable, Sendable, CustomStringConvertible {
  let rawValue: UInt64

  var description: String { "#\(rawValue)" }
}

/// Which contexts' perform blocks the current code is executing, and nothing else.
///
/// Legality is a property of the perform scope, not of the thread: a context's queue may run on
/// any worker thread, and an actor changes threads between awaits. So the core keeps a per-thread
/// stack of the contexts whose blocks are running right now. `perform` starts a frame holding
/// only its own context; `performAndWait` extends the caller's frame, so code inside a nested
/// `performAndWait` may still touch the outer context, which is blocked waiting for it.
///
/// A frame belongs to the dispatch queue whose block it was started in. `DispatchQueue.sync` runs
/// its block on the calling thread whenever it can (on Linux even for the main queue; on Darwin
/// except for the main queue, whose blocks run on the main thread), so the thread alone does not
/// tell which block runs: the current queue does, on both platforms alike. A frame applies only
/// while its queue is the current one; the core's own `performAndWait` carries it on explicitly.
/// The main queue is the one exception on Darwin, where the main thread holds it in any block
/// (`holdsMainQueue`).
enum PerformScope {
  /// A context whose block is running. It holds the context, not its name: a block may rename
  /// its context (`performBackgroundTask`'s start unnamed), and a report names it as it is then.
  struct Entry: Sendable {
    let id: ContextID
    let core: ContextCore

    var displayName: String { core.displayName }
  }

  /// What the current code may touch: the contexts whose blocks are running, innermost last,
  /// and whether a caller up the stack holds the main queue (it is blocked in a
  /// `performAndWait` started where it held the main queue; see `holdsMainQueue`).
  struct Frame {
    var entries: [Entry] = []
    var holdsMainQueue = false
    /// The mark of the queue whose block started the frame (see `currentQueue`).
    var queue: UInt64?
  }

  /// The frame that applies to the code running now: none once the thread runs another queue's
  /// block, synchronously, from inside the frame's.
  static var current: Frame {
    guard let frame = frameBox()?.frame, frame.queue == currentQueue else { return Frame() }
    return frame
  }

  static func contains(_ id: ContextID) -> Bool {
    guard let frame = frameBox()?.frame, frame.entries.contains(where: { $0.id == id }) else {
      return false
    }
    return frame.queue == currentQueue
  }

  /// True when this thread runs `id`'s block further up its stack, whether or not its frame
  /// applies here: a `performAndWait` must not dispatch onto a queue its own thread holds.
  static func threadHolds(_ id: ContextID) -> Bool {
    frameBox()?.frame.entries.contains { $0.id == id } ?? false
  }

  /// The contexts whose blocks this thread runs further up its stack, whether or not its frame
  /// applies here: their queues run nothing else until those blocks end.
  static var heldByThisThread: [Entry] {
    frameBox()?.frame.entries ?? []
  }

  /// Runs `body` with `frame` as the current thread's frame, then restores the previous one. The
  /// frame belongs to the queue running `body`.
  static func run<Result, Failure: Error>(
    frame: Frame,
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let box = frameBox(creating: true)!
    let saved = box.frame
    box.frame = frame
    box.frame.queue = currentQueue
    defer { box.frame = saved }
    return try body()
  }

  /// Runs a batch insert's handler on the request's scratch object. The handler runs in the
  /// caller's scope, so each use it makes of the context is checked like any other; filling the
  /// scratch object is part of the request, which was checked once, so that use is allowed here.
  static func filling<Result>(_ scratch: AnyObject, _ handler: () -> Result) -> Result {
    let box = frameBox(creating: true)!
    let saved = box.filling
    box.filling = (ObjectIdentifier(scratch), currentQueue)
    defer { box.filling = saved }
    return handler()
  }

  /// True inside `filling(object)`, on the queue that called it.
  static func isFilling(_ object: AnyObject) -> Bool {
    guard let filling = frameBox()?.filling, filling.object == ObjectIdentifier(object) else {
      return false
    }
    return filling.queue == currentQueue
  }

  // MARK: - Queues

  /// Marks the main queue and each context's queue, so that `currentQueue` can tell them apart.
  private static let queueKey = DispatchSpecificKey<UInt64>()
  private static let mainQueueMark: UInt64 = 0
  private static let mainQueueMarked: Bool = {
    DispatchQueue.main.setSpecific(key: queueKey, value: mainQueueMark)
    return true
  }()

  /// Marks a private context's queue with its context's ID (never 0, the main queue's mark).
  static func mark(_ queue: DispatchQueue, for id: ContextID) {
    queue.setSpecific(key: queueKey, value: id.rawValue)
  }

  /// The mark of the queue whose block is running: a context's, the main queue's (also for a
  /// queue that targets it), or nil for any other queue and for code on no queue.
  static var currentQueue: UInt64? {
    _ = mainQueueMarked
    return DispatchQueue.getSpecific(key: queueKey)
  }

  /// True on the main queue: in a block submitted to it, or on the main thread outside any
  /// block (Dispatch counts that as the main queue). Not in a block of another queue that
  /// main-queue code waits for with `sync`: Darwin runs that block on the main thread, Linux on
  /// a worker thread, and the queue is the answer both agree on. `Thread.isMainThread` would
  /// answer differently on each, and on Linux main-queue blocks may run on any worker thread.
  static var isOnMainQueue: Bool {
    currentQueue == mainQueueMark
  }

  /// True on the main queue, or where a caller up the stack holds it and waits: inside a
  /// `performAndWait` started on the main queue, and on Darwin inside any `sync` block the main
  /// thread runs.
  ///
  /// Darwin binds the main queue to the main thread ("the serial dispatch queue associated with
  /// the application's main thread", `dispatch_get_main_queue`), and `sync` runs its block on the
  /// calling thread, so there the main thread holds the main queue in any block, as
  /// `dispatch_assert_queue` counts it. Linux drains the main queue on worker threads, and its
  /// only check that follows a `sync` back to its caller is that same assertion, which ends the
  /// process: a block of another queue that main-queue code waits for is not counted there (the
  /// difference is listed in Tests/FIDELITY.md).
  static var holdsMainQueue: Bool {
    if Platform.mainThreadHoldsMainQueue { return true }
    let queue = currentQueue
    if queue == mainQueueMark { return true }
    guard let frame = frameBox()?.frame, frame.holdsMainQueue else { return false }
    return frame.queue == queue
  }

  /// True in a block of a serial queue that is neither the main queue nor a context's, where
  /// Linux cannot tell whether main-queue code waits for the block in `sync`.
  static var mayBeWaitedForByMainQueue: Bool {
    guard !Platform.seesMainQueueCallersInSync, currentQueue == nil else { return false }
    let label = Platform.currentQueueLabel
    return !label.isEmpty && !isGlobalQueue(label)
  }

  /// True for Dispatch's global queues and the queues Swift's global executor runs tasks on:
  /// global (root) queues on Darwin, and elsewhere concurrent queues the runtime creates under
  /// this name (swiftlang/swift, stdlib/public/Concurrency/DispatchGlobalExecutor.cpp).
  private static func isGlobalQueue(_ label: String) -> Bool {
    label.hasPrefix("com.apple.root.") || label == "Swift global concurrent queue"
  }

  /// A human description of where the current code runs, for violation messages.
  static func describeCurrentLocation() -> String {
    let entries = current.entries
    // Inside another context's block, that block is the place that matters, not the thread.
    if !entries.isEmpty {
      let names = entries.map { "'\($0.displayName)'" }.joined(separator: ", ")
      return isOnMainQueue
        ? "on the main queue, inside perform of \(names)" : "inside perform of \(names)"
    }
    if isOnMainQueue {
      return "on the main queue, outside any perform block"
    }
    // A task's code may run in another queue's block, synchronously: say which queue, and claim
    // the cooperative pool only for the pool's own queues.
    let label = Platform.currentQueueLabel
    let queue = label.isEmpty || isGlobalQueue(label) ? nil : "on queue '\(label)'"
    if withUnsafeCurrentTask(body: { $0 != nil }) {
      let place = queue ?? "on the cooperative thread pool"
      return "in a Swift task \(place), outside any perform block"
    }
    if let queue { return "\(queue), outside any perform block" }
    let name = Platform.currentThreadName
    let thread = name.isEmpty ? "on a background thread" : "on thread '\(name)'"
    return "\(thread), outside any perform block"
  }

  // MARK: - Thread-local storage

  /// One frame per thread. It is only ever touched by the thread that owns it.
  private final class FrameBox {
    var frame = Frame()
    var filling: (object: ObjectIdentifier, queue: UInt64?)?
  }

  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, Platform.releaseObjectDestructor)
    precondition(status == 0, "pthread_key_create failed with \(status)")
    return key
  }()

  private static func frameBox(creating: Bool = false) -> FrameBox? {
    if let raw = pthread_getspecific(key) {
      return Unmanaged<FrameBox>.fromOpaque(raw).takeUnretainedValue()
    }
    guard creating else { return nil }
    let box = FrameBox()
    pthread_setspecific(key, Unmanaged.passRetained(box).toOpaque())
    return box
  }
}
