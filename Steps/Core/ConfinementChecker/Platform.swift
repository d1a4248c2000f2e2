import Dispatch
import Foundation

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

#if !canImport(Darwin) && canImport(CDispatch)
  // `dispatch_queue_get_label`, which the Linux overlay hides behind `DispatchQueue.label`.
  import CDispatch
#endif

// Where Apple's platforms and Linux differ
// ========================================
//
// Every place the core behaves differently on Darwin (macOS, where attendees run the workshop)
// and on Linux (where CI runs it) is in this file, both sides next to each other, each as small
// as it can be. CI compiles and runs the Linux side only; the Darwin side has been read against
// Apple's documentation but not compiled here (Tests/MAINTAINING.md says so).

enum Platform {
  /// Whether the main thread holds the main queue in any block it runs, also in a block of
  /// another queue that it waits for with `sync`.
  ///
  /// Darwin: yes. The main queue is "the serial dispatch queue associated with the application's
  /// main thread" (`dispatch_get_main_queue`), and `sync` runs its block on the calling thread,
  /// so `dispatch_assert_queue(main)` holds there. Linux: Dispatch drains the main queue on
  /// worker threads, and `Thread.isMainThread` says nothing about the main queue.
  static var mainThreadHoldsMainQueue: Bool {
    #if canImport(Darwin)
      Thread.isMainThread
    #else
      false
    #endif
  }

  /// Whether a block of a serial queue that main-queue code may be waiting for in `sync` can be
  /// told apart from one it is not waiting for. Darwin: the main thread runs it (above). Linux:
  /// no public, non-trapping check follows a `sync` back to its caller.
  static let seesMainQueueCallersInSync: Bool = {
    #if canImport(Darwin)
      true
    #else
      false
    #endif
  }()

  /// The label of the queue whose block is running ("" when it has none). Both call Dispatch's C
  /// function `dispatch_queue_get_label(DISPATCH_CURRENT_QUEUE_LABEL)`: Apple's SDK imports it
  /// into Swift as `__dispatch_queue_get_label` (its API notes mark it Swift-private in favour of
  /// `DispatchQueue.label`, which needs a queue in hand), the Linux overlay through `CDispatch`.
  static var currentQueueLabel: String {
    #if canImport(Darwin)
      String(cString: __dispatch_queue_get_label(nil))
    #elseif canImport(CDispatch)
      String(cString: dispatch_queue_get_label(nil))
    #else
      ""
    #endif
  }

  /// The current thread's name, where it says where the code runs ("" otherwise). Linux threads
  /// inherit their creator's name (a Dispatch worker's, "oot.default-qos"), and
  /// swift-corelibs-foundation does not apply a name set before `start()` (observed), so there a
  /// name would point at the wrong place.
  static var currentThreadName: String {
    #if canImport(Darwin)
      Thread.current.name ?? ""
    #else
      ""
    #endif
  }

  /// A `pthread_key_create` destructor that releases the object stored under the key. The C
  /// signature's pointer is non-optional on Darwin and optional on Linux.
  #if canImport(Darwin)
    static let releaseObjectDestructor: @convention(c) (UnsafeMutableRawPointer) -> Void = {
      Unmanaged<AnyObject>.fromOpaque($0).release()
    }
  #else
    static let releaseObjectDestructor: @convention(c) (UnsafeMutableRawPointer?) -> Void = {
      guard let raw = $0 else { return }
      Unmanaged<AnyObject>.fromOpaque(raw).release()
    }
  #endif
}
