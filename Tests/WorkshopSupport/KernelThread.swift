import WorkshopEnvironment

#if canImport(Glibc)
  import Glibc
#endif

/// A thread, as the kernel sees it: whether it is parked, waiting in the kernel (on a semaphore,
/// a contended lock, a condition, a group), rather than running or ready to run. A check asks
/// about a thread that runs a caller's job: parked while the block it called for is held, that
/// caller waits blocked for the block, which no `await` does.
///
/// Linux only: the state letter of `/proc/self/task/<tid>/stat`, `S` or `D` for a parked thread
/// (proc(5)). Elsewhere, on a Mac too, the kernel is not asked (`isParked` is nil) and the checks
/// that ask fall back to their bounds: a Darwin side (`thread_info`) could not be compiled here,
/// and a compile error in this target would stop every step's checks on an attendee's Mac.
public struct KernelThread: Sendable {
  #if canImport(Glibc)
    private let tid: pid_t
  #endif

  /// The thread that calls this.
  public static var current: KernelThread { KernelThread() }

  private init() {
    #if canImport(Glibc)
      tid = Self.currentTID()
    #endif
  }

  /// Whether the kernel is asked at all: not on a Mac, nor here with `WORKSHOP_KERNEL=0`, which
  /// runs the path a Mac takes.
  static let isAsked = WorkshopEnvironment.value(WorkshopEnvironment.kernel) != "0"

  /// Whether the kernel has the thread waiting now; nil when it cannot be asked.
  public var isParked: Bool? {
    #if canImport(Glibc)
      guard Self.isAsked, tid >= 0, let state = Self.stateLetter(of: tid) else { return nil }
      return state == "S" || state == "D"
    #else
      return nil
    #endif
  }

  #if canImport(Glibc)
    /// The calling thread's ID, from the link `/proc/thread-self` ("<pid>/task/<tid>"): Swift's
    /// Glibc module does not import `gettid`, and `syscall` is variadic. -1 when it cannot be
    /// read (no thread has it, so its state is never asked).
    private static func currentTID() -> pid_t {
      var bytes = [CChar](repeating: 0, count: 64)
      let count = bytes.withUnsafeMutableBufferPointer { buffer -> Int in
        guard let base = buffer.baseAddress else { return -1 }
        return readlink("/proc/thread-self", base, buffer.count - 1)
      }
      guard count > 0 else { return -1 }
      let link = String(decoding: bytes[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      guard let slash = link.lastIndex(of: "/") else { return -1 }
      return pid_t(link[link.index(after: slash)...]) ?? -1
    }

    /// The third field of the thread's stat line: after the name in parentheses, which may hold
    /// spaces and parentheses of its own, so it is read after the last ")".
    private static func stateLetter(of tid: pid_t) -> Character? {
      let descriptor = open("/proc/self/task/\(tid)/stat", O_RDONLY)
      guard descriptor >= 0 else { return nil }
      defer { close(descriptor) }
      var bytes = [UInt8](repeating: 0, count: 512)
      let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { return nil }
      let line = String(decoding: bytes[..<count], as: UTF8.self)
      guard let close = line.lastIndex(of: ")") else { return nil }
      return line[line.index(after: close)...].first { $0 != " " }
    }
  #endif
}
