import Foundation
import Synchronization

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#endif

/// Ends a hung test run with a message naming the check and the likely cause.
///
/// `.timeLimit` is minute-grained and cannot stop a blocked thread: a deadlock in a step's code
/// (say, `performAndWait` inside an executor's `enqueue`) would hang the whole run. The watchdog
/// runs on a thread of its own, outside Dispatch and the cooperative pool, so it still wakes
/// when both are blocked.
public final class Watchdog: Sendable {
  public static let shared = Watchdog()

  public struct Token: Sendable, Hashable {
    let rawValue: UInt64
  }

  private struct Armed {
    let what: String
    let likelyCause: String
    let deadline: Date
  }

  private struct State {
    var next: UInt64 = 1
    var armed: [UInt64: Armed] = [:]
    var started = false
  }

  private let condition = NSCondition()
  private let state = Mutex(State())

  private init() {}

  public func arm(_ what: String, likelyCause: String, after timeout: Duration) -> Token {
    let deadline = Date(timeIntervalSinceNow: timeout.seconds * timeScale)
    let (token, start) = state.withLock { state in
      defer { state.next += 1 }
      state.armed[state.next] = Armed(what: what, likelyCause: likelyCause, deadline: deadline)
      let start = !state.started
      state.started = true
      return (Token(rawValue: state.next), start)
    }
    if start {
      let thread = Thread { [self] in watch() }
      thread.name = "workshop.watchdog"
      thread.start()
    }
    condition.lock()
    condition.signal()
    condition.unlock()
    return token
  }

  public func disarm(_ token: Token) {
    state.withLock { _ = $0.armed.removeValue(forKey: token.rawValue) }
  }

  private func watch() {
    condition.lock()
    while true {
      let now = Date()
      let earliest = state.withLock { $0.armed.values.min { $0.deadline < $1.deadline } }
      if let earliest, earliest.deadline <= now {
        condition.unlock()
        fire(earliest)
      }
      _ = condition.wait(until: earliest?.deadline ?? now.addingTimeInterval(3600))
    }
  }

  private func fire(_ armed: Armed) -> Never {
    let message = """

      WATCHDOG: \(armed.what) did not finish in time, so the test run was stopped.
      Likely cause: \(armed.likelyCause)
      Nothing else can end a deadlock: a blocked thread cannot be cancelled. Fix the hang, then run \
      the check again.

      """
    // Straight to file descriptor 2: no buffering, no shared `FILE *`, no locks held elsewhere.
    let bytes = Array(message.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    _exit(EXIT_FAILURE)
  }
}
