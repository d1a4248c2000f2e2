import Dispatch
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The identity of one context's confinement domain.
struct ContextID: Hashable, Sendable, CustomStringConvertible {
  let rawValue: UInt64

  var description: String { "#\(rawValue)" }
}

/// Which contexts' perform blocks the current thread is executing, and nothing else.
///
/// Legality is a property of the perform scope, not of the thread: a context's queue may run on
/// any worker thread, and an actor changes threads between awaits. So the core keeps a per-thread
/// stack of the contexts whose blocks are running right now. `perform` starts a frame holding
/// only its own context; `performAndWait` extends the caller's frame, so code inside a nested
/// `performAndWait` may still touch the outer context, which is blocked waiting for it.
enum PerformScope {
  struct Entry: Sendable {
    let id: ContextID
    let displayName: String
  }

  /// What the current thread may touch: the contexts whose blocks are running, innermost last,
  /// and whether a caller up the stack holds the main queue (it is blocked in a
  /// `performAndWait` started on the main queue).
  struct Frame {
    var entries: [Entry] = []
    var holdsMainQueue = false
  }

  static var current: Frame {
    frameBox()?.frame ?? Frame()
  }

  static func contains(_ id: ContextID) -> Bool {
    guard let box = frameBox() else { return false }
    for entry in box.frame.entries where entry.id == id { return true }
    return false
  }

  /// Runs `body` with `frame` as the current thread's frame, then restores the previous one.
  static func run<Result, Failure: Error>(
    frame: Frame,
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let box = frameBox(creating: true)!
    let saved = box.frame
    box.frame = frame
    defer { box.frame = saved }
    return try body()
  }

  // MARK: - Main queue

  private static let mainQueueKey = DispatchSpecificKey<Bool>()
  private static let mainQueueMarked: Bool = {
    DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
    return true
  }()

  /// True on the main queue. On Linux main-actor jobs are drained from the main queue by a thread
  /// for which `Thread.isMainThread` can be false, so Dispatch is asked first.
  static var isOnMainQueue: Bool {
    _ = mainQueueMarked
    return DispatchQueue.getSpecific(key: mainQueueKey) == true || Thread.isMainThread
  }

  /// True on the main queue, or inside a `performAndWait` whose caller was on it.
  static var holdsMainQueue: Bool {
    (frameBox()?.frame.holdsMainQueue ?? false) || isOnMainQueue
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
    if withUnsafeCurrentTask(body: { $0 != nil }) {
      return "in a Swift task on the cooperative thread pool, outside any perform block"
    }
    let name = Thread.current.name ?? ""
    let thread = name.isEmpty ? "on a background thread" : "on thread '\(name)'"
    return "\(thread), outside any perform block"
  }

  // MARK: - Thread-local storage

  /// One frame per thread. It is only ever touched by the thread that owns it.
  private final class FrameBox {
    var frame = Frame()
  }

  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    let status = pthread_key_create(&key, releaseFrameBox)
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

#if canImport(Darwin)
  private func releaseFrameBox(_ raw: UnsafeMutableRawPointer) {
    Unmanaged<AnyObject>.fromOpaque(raw).release()
  }
#else
  private func releaseFrameBox(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    Unmanaged<AnyObject>.fromOpaque(raw).release()
  }
#endif
