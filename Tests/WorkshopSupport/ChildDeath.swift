import Foundation
import Testing

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#endif

/// How a child process died, read from its standard error: the signal, and the last words it
/// wrote before it, which carry the message of the call that stopped it (the core's, naming the
/// object ID; Swift's, for a `try!`, an `as!` or a force unwrap; the runtime's).
///
/// An exit test that ends with a signal hands its parent nothing but the signal: a failed
/// `#expect(processExitsWith:)` returns no result, so no standard error, and the attendee would
/// read what the test guessed instead of what their code did. So a child turns its death into a
/// report (`ChildCheck.catchDeath()`): on a fatal signal it writes a marker line naming the signal
/// after everything it wrote, and exits normally, for the parent to read and report as a failure.
public struct ChildDeath: Sendable, Equatable {
  /// The signal, as the marker names it: `SIGILL, a trap`.
  public let signal: String
  /// The last lines the child wrote before it died, from the first that says why on.
  public let lastWords: [String]

  /// What an Observed line says of this death, after its subject: "the scenario ended its
  /// process (SIGILL, a trap). Its last words: …".
  public var observed: String {
    "ended its process (\(signal)). Its last words:\n  " + lastWords.joined(separator: "\n  ")
  }

  static let marker = "WORKSHOP-CHILD-DIED"

  /// The death reported in `standardError`, or nil when the child did not die of a signal.
  public init?(standardError: String) {
    let lines = standardError.split(separator: "\n", omittingEmptySubsequences: true)
    guard let index = lines.firstIndex(where: { $0.hasPrefix(Self.marker) }) else { return nil }
    signal = String(lines[index].dropFirst(Self.marker.count).drop { $0 == " " })
    // The harness's own marker lines say nothing about the death.
    let before = lines[..<index].filter { !$0.hasPrefix("WORKSHOP-") }
    // From the last line that says why (Swift's "Fatal error:", a failed cast), else the end.
    let why = before.lastIndex { line in
      line.localizedCaseInsensitiveContains("fatal error") || line.contains("Could not cast")
    }
    // Up to the stack trace the runtime may print after the message: addresses teach nothing.
    let words = before[(why ?? max(before.startIndex, before.endIndex - 3))...]
      .prefix { !$0.hasPrefix("Current stack trace") }.prefix(3)
    lastWords = words.isEmpty ? ["(nothing: it died without a word)"] : words.map(String.init)
  }

  /// The death reported by an exit test's child, read from its captured standard error.
  public init?(_ result: ExitTest.Result) {
    self.init(standardError: String(decoding: result.standardErrorContent, as: UTF8.self))
  }
}

extension ChildCheck {
  /// In a child process: a death by a fatal signal (a trap, an abort, a bad access) writes
  /// ``ChildDeath``'s marker line and exits normally, so that the parent receives the child's
  /// standard error and reports what stopped it. `run` calls it; a child that does not use
  /// `run` calls it first.
  public static func catchDeath() {
    for fatal in [SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE] {
      _ = signal(fatal, reportDeath)
    }
  }
}

/// The signal handler: async-signal-safe, so static text, `write` and `_exit` only.
private func reportDeath(_ fatal: Int32) {
  let line: StaticString =
    switch fatal {
    case SIGILL: "WORKSHOP-CHILD-DIED SIGILL, a trap\n"
    case SIGTRAP: "WORKSHOP-CHILD-DIED SIGTRAP, a trap\n"
    case SIGABRT: "WORKSHOP-CHILD-DIED SIGABRT, an abort\n"
    case SIGSEGV: "WORKSHOP-CHILD-DIED SIGSEGV, a bad memory access\n"
    case SIGBUS: "WORKSHOP-CHILD-DIED SIGBUS, a bad memory access\n"
    default: "WORKSHOP-CHILD-DIED a fatal signal\n"
    }
  _ = write(2, line.utf8Start, line.utf8CodeUnitCount)
  _exit(EXIT_SUCCESS)
}
