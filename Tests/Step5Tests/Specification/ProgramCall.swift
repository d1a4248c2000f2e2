import Foundation
import ManagedObjectCore
import Synchronization
import WorkshopSupport

/// What the checks tell a running block to do next.
enum BlockCommand: Sendable {
  case finish(throwing: Bool)
  case callBackIn(Access)
}

/// The error a block of a program throws when told to.
struct ProgramBlockError: Error {}

/// One caller of a program: its task, and a block that records when it starts and ends, then
/// does what the checks tell it, one command at a time, until it is told to finish.
final class ProgramCall: Sendable {
  let number: Int
  private let commands = Mutex([BlockCommand]())
  private let arrived = NSCondition()
  /// When the task called the scheduler: where a cancel "as it asks" aims. An atomic, not a
  /// lock: a thread that spins on a contended lock is put to sleep, and wakes microseconds late.
  var askedAt: ContinuousClock.Instant? {
    let nanoseconds = asked.load(ordering: .acquiring)
    return nanoseconds < 0 ? nil : Self.epoch + .nanoseconds(nanoseconds)
  }
  private let asked = Atomic(-1)
  private static let epoch = ContinuousClock.now
  private let task = Mutex<Task<Void, Never>?>(nil)

  init(_ number: Int) {
    self.number = number
  }

  /// Sends the call. `limit` makes it a capped write; `early` waits for the task to be
  /// cancelled before it asks; `executor` is where the task and its children prefer to run.
  func send(
    _ access: Access, limit: Duration? = nil, early: Bool = false, to scheduler: any Scheduler,
    subject: Subject, history: SchedulerHistory, executor: (any TaskExecutor)? = nil
  ) {
    let block = self.block(scheduler, subject, history)
    let number = self.number
    let task = Task(executorPreference: executor) {
      if early { _ = await eventually(within: .seconds(5)) { Task.isCancelled } }
      let (seconds, attoseconds) = (ContinuousClock.now - Self.epoch).components
      self.asked.store(
        Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000), ordering: .releasing)
      do {
        switch (access, limit) {
        case (.read, _): try await scheduler.executeRead(block)
        case (.write, nil): try await scheduler.executeWrite(block)
        case (.write, let limit?): try await scheduler.executeWrite(waitingAtMost: limit, block)
        }
        history.record(.returned(number, .ran))
      } catch {
        history.record(.returned(number, Self.outcome(of: error, subject)))
      }
    }
    self.task.withLock { $0 = task }
  }

  func cancel() {
    task.withLock { $0 }?.cancel()
  }

  /// Tells the block what to do next.
  func command(_ command: BlockCommand) {
    arrived.lock()
    commands.withLock { $0.append(command) }
    arrived.broadcast()
    arrived.unlock()
  }

  private static func outcome(of error: any Error, _ subject: Subject) -> CallOutcome {
    if error is ProgramBlockError { return .threwItsBlocksError }
    if error is CancellationError { return .cancelled }
    if subject.isTimedOut(error) { return .timedOut }
    if subject.isReentrantCall(error) { return .reentrantCall }
    return .other("\(error)")
  }

  /// The next command, or nil when none came within `timeout` (the run is over).
  private func next(within timeout: Duration) -> BlockCommand? {
    let deadline = Date(timeIntervalSinceNow: timeout.seconds)
    arrived.lock()
    defer { arrived.unlock() }
    while true {
      let command = commands.withLock { $0.isEmpty ? nil : $0.removeFirst() }
      if let command { return command }
      if !arrived.wait(until: deadline) { return nil }
    }
  }

  private func block(
    _ scheduler: any Scheduler, _ subject: Subject, _ history: SchedulerHistory
  ) -> @Sendable (ManagedObjectContext) throws -> Void {
    { [number] _ in
      history.record(.started(number))
      defer { history.record(.ended(number)) }
      while let command = self.next(within: .seconds(15) * timeScale) {
        switch command {
        case .finish(let throwing):
          if throwing { throw ProgramBlockError() }
          return
        case .callBackIn(let access):
          history.record(.calledBackIn(number, Self.callBack(access, scheduler, subject)))
        }
      }
    }
  }

  /// Calls the scheduler from inside a block, through a task that inherits the block's task
  /// locals, and waits until that call ends, or is seen queued (behind the very block that
  /// waits for it: a deadlock, reported as nil).
  private static func callBack(
    _ access: Access, _ scheduler: any Scheduler, _ subject: Subject
  ) -> CallOutcome? {
    let done = Gate()
    let outcome = Mutex<CallOutcome?>(nil)
    let queuedBefore = scheduler.waitingCount
    Task {
      do {
        switch access {
        case .read: try await scheduler.executeRead { _ in }
        case .write: try await scheduler.executeWrite { _ in }
        }
        outcome.withLock { $0 = .ran }
      } catch {
        outcome.withLock { $0 = Self.outcome(of: error, subject) }
      }
      done.open()
    }
    _ = waitBlocking(for: done, orUntil: { scheduler.waitingCount > queuedBefore })
    return outcome.withLock { $0 }
  }
}
