import Foundation
import ManagedObjectCore

/// A stretch task's stub says "not started" by calling `StretchTask.notStarted()`, and `exam`
/// listens to the calls made while a check runs (see `StretchTask` in the core). These are for
/// the checks whose stub cannot be heard that way: a stub that runs in a child process (an exit
/// test), and a stretch task that cannot have been started yet.
public enum StretchStubs {
  /// How a child process reports a call, one line on its standard error.
  static let marker = "StretchTask.notStarted(): "

  /// In a child process: runs `body`, and prints each `StretchTask.notStarted()` call it makes
  /// to standard error at once, since the child may stop right after it.
  public static func reported<Result>(_ body: () throws -> Result) rethrows -> Result {
    let printer = StretchTask.Observer { call in
      FileHandle.standardError.write(Data("\(marker)\(call)\n".utf8))
    }
    return try StretchTask.$observer.withValue(printer) { try body() }
  }

  /// In the check: hands the calls a child process reported (`output`, its standard error) on to
  /// the running check, as if its stub had been called here.
  /// True when a call was relayed: the task is not started.
  @discardableResult
  public static func relay(_ output: String) -> Bool {
    var relayed = false
    for line in output.split(separator: "\n") where line.hasPrefix(marker) {
      StretchTask.observer?.record(String(line.dropFirst(marker.count)))
      relayed = true
    }
    return relayed
  }

  /// In the check: says that the stretch task cannot have been started, because the code it
  /// builds on is not written yet (`reason`). The check must still fail: the main check reports
  /// what is missing, and this one counts as not started, optional.
  public static func cannotHaveStarted(because reason: String) {
    StretchTask.observer?.record(reason)
  }
}
