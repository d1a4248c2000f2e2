import Synchronization

typealias Access = SchedulerSpecification.Access

/// How a call through the scheduler ended, as its caller saw it.
enum CallOutcome: Equatable, Sendable, CustomStringConvertible {
  case ran
  case threwItsBlocksError
  case cancelled
  case timedOut
  case reentrantCall
  case other(String)

  var description: String {
    switch self {
    case .ran: "returned its block's result"
    case .threwItsBlocksError: "rethrew its block's error"
    case .cancelled: "threw CancellationError"
    case .timedOut: "threw SchedulerError.timedOut"
    case .reentrantCall: "threw SchedulerError.reentrantCall"
    case .other(let error): "threw \(error)"
    }
  }
}

/// One thing that happened while a program ran. What the checks do is recorded just before
/// they do it; what the scheduler does is recorded by the blocks and the callers as it happens.
enum SchedulerEvent: Sendable, CustomStringConvertible {
  /// A caller asks; a capped write waits at most `limit`.
  case asks(Int, Access, limit: Duration?)
  /// A caller whose task is cancelled as it asks, or (`early`) before it asks.
  case asksCancelled(Int, Access, early: Bool)
  case cancel(Int)
  /// The checks let a running block end, returning or throwing.
  case finish(Int, throwing: Bool)
  /// The checks let a block end and cancel the first waiter at the same moment.
  case race(cancel: Int, finish: Int)
  /// The checks let a block end when the first waiter's limit is about up.
  case raceTimer(capped: Int, finish: Int)
  /// A running block calls back into its own scheduler.
  case callsBackIn(Int, Access)
  case started(Int)
  case ended(Int)
  case returned(Int, CallOutcome)
  /// How a block's call back in ended.
  case calledBackIn(Int, CallOutcome?)

  var description: String {
    switch self {
    case .asks(let call, let access, let limit):
      "C\(call) asks to \(access.rawValue)" + (limit.map { ", waiting at most \($0)" } ?? "")
    case .asksCancelled(let call, let access, let early):
      "C\(call) asks to \(access.rawValue), its task cancelled \(early ? "before" : "as") it asks"
    case .cancel(let call): "C\(call)'s task is cancelled"
    case .finish(let call, let throwing):
      "C\(call)'s block \(throwing ? "throws" : "returns")"
    case .race(let cancel, let finish):
      "C\(finish)'s block returns as C\(cancel)'s task is cancelled"
    case .raceTimer(let capped, let finish):
      "C\(finish)'s block returns as C\(capped)'s limit is up"
    case .callsBackIn(let call, let access):
      "C\(call)'s block calls the scheduler to \(access.rawValue)"
    case .started(let call): "    C\(call) starts"
    case .ended(let call): "    C\(call) ends"
    case .returned(let call, let outcome): "    C\(call) \(outcome)"
    case .calledBackIn(let call, let outcome):
      "    C\(call)'s call back in " + (outcome.map { "\($0)" } ?? "queued: a deadlock")
    }
  }

  /// True for what the checks did, false for what the scheduler did.
  var isAction: Bool {
    switch self {
    case .started, .ended, .returned, .calledBackIn: false
    default: true
    }
  }
}

/// The events of one run, in the order they happened, with when.
final class SchedulerHistory: Sendable {
  struct Entry: Sendable {
    let event: SchedulerEvent
    let time: ContinuousClock.Instant
  }

  private let entries = Mutex([Entry]())

  func record(_ event: SchedulerEvent) {
    entries.withLock { $0.append(Entry(event: event, time: .now)) }
  }

  var all: [Entry] { entries.withLock { $0 } }

  var count: Int { entries.withLock { $0.count } }
}
