import Foundation
import Synchronization
import WorkshopSupport

/// Runs one program against a side's four executors, on a thread of its own (every call it
/// makes is synchronous: `Task.init` enqueues before it returns, `perform` queues a block), and
/// records the history. Each run has its own history and counters, so a job left over from an
/// earlier run records nothing here.
final class ProgramRun: Sendable {
  /// How long a run waits for the jobs it started, and a held job for the questions: bounds
  /// that only keep a wrong executor (jobs dropped, a queue held) from hanging the check.
  static let settleBound: Duration = .seconds(2)
  static let holdBound: Duration = .milliseconds(300)

  let places: [ActorAndContext]
  let history = ExecutorHistory()
  private let nextJob = Atomic<Int>(1)
  private let due = Outstanding()

  init(_ places: [ActorAndContext]) {
    self.places = places
  }

  /// Runs `steps`, waits (bounded) for every job to end, and judges the history whole.
  func run(_ steps: [ProgramStep]) -> ExecutorBreach? {
    for step in steps { run(step) }
    let settled = due.waitUntilNone(within: Self.settleBound * timeScale)
    return HistoryReplay.judge(history.all, settled: settled)
  }

  private func run(_ step: ProgramStep) {
    switch step {
    case .burst(let on, let count, let from?, _):
      // To its own actor: first let the jobs of earlier steps end, so that none of them runs
      // when the block enqueues, the moment an executor that runs a job inline "when nothing
      // else runs" would take to overtake the forerunner.
      if on == from { _ = due.waitUntilNone(within: Self.holdBound * timeScale) }
      // The block waits until a forerunner job has been handed to `on` from this thread, so its
      // own enqueues come after one that has returned: on the queue or not, they start after it.
      let forerunnerHandedOver = Gate()
      let programThread = KernelThread.current
      due.add()
      places[from].container.perform { [self] in
        waitForHandOver(forerunnerHandedOver, by: programThread, to: places[from])
        for _ in 0..<count { enqueue(on: on, from: .performOf(from)) }
        due.remove()
      }
      enqueue(on: on, from: .programThread)
      forerunnerHandedOver.open()
    case .burst(let on, let count, nil, let onThePool):
      guard onThePool else {
        for _ in 0..<count { enqueue(on: on, from: .programThread) }
        return
      }
      due.add()
      Task.detached { [self] in
        for _ in 0..<count { enqueue(on: on, from: .pool) }
        due.remove()
      }
    case .nested(let on, let outer, let count):
      enqueue(on: outer, from: .programThread) { [self] job in
        for _ in 0..<count { enqueue(on: on, from: .job(job, of: outer)) }
      }
    case .twins(let first, let second, let count):
      twins(first, second, count)
    case .askDuringJob(let during, let from):
      askDuringJob(during, from: from)
    }
  }

  /// Waits, in a block of `place`'s context, until the program's thread has handed a forerunner
  /// job to `place`'s executor: a job run at once then overtakes it, and only then (a block
  /// that went on after 300 ms caught that mistake in 96 to 97 runs of 100 under load; after
  /// 20 µs, in none of 30). Ends sooner when that thread cannot hand it over while this block
  /// holds the queue: it waits in `performAndWait` for it, or is parked in the kernel for as
  /// long as ``ParkedJobWatch`` takes to tell (an enqueue that blocks some other way). The
  /// bound is for a thread that is only slow.
  private func waitForHandOver(
    _ handedOver: Gate, by programThread: KernelThread, to place: ActorAndContext
  ) {
    let watch = ParkedJobWatch()
    let deadline = ContinuousClock.now + Self.settleBound * timeScale
    while !handedOver.wait(timeout: ParkedJobWatch.look) {
      if place.container.persistentContainer.threadsInPerformAndWait > 0
        || watch.blocked(programThread) || ContinuousClock.now >= deadline
      {
        return
      }
    }
  }

  /// Starts a task on executor `executor`'s actor; its one job records where it ran, asks every
  /// executor whether it is isolated there, runs `body`, and records its end.
  private func enqueue(
    on executor: Int, from origin: Origin, _ body: (@Sendable (Int) -> Void)? = nil
  ) {
    let job = nextJob.add(1, ordering: .relaxed).oldValue
    due.add()
    history.record(.enqueues(job, on: executor, origin))
    places[executor].startTask { [self] in
      let queues = places.indices.filter { places[$0].container.isOnContextQueue }
      history.record(.started(job, onQueuesOf: queues))
      askEveryExecutor(from: .job(job, of: executor))
      body?(job)
      history.record(.ended(job))
      due.remove()
    }
    history.record(.enqueued(job))
  }

  /// `isIsolatingCurrentContext()` of every executor, with what the perform scope says.
  private func askEveryExecutor(from origin: Origin) {
    for (index, place) in places.enumerated() {
      let truth = place.container.isOnContextQueue
      let answer = place.executor.isIsolatingCurrentContext()
      history.record(.answered(index, origin, answer: answer, truth: truth))
    }
  }

  /// Two threads spin at a barrier, then start their tasks at the same instant: enqueue is
  /// called on two executors at once, so anything they share is touched at once. The spin is
  /// aimed at that moment, and bounded.
  private func twins(_ first: Int, _ second: Int, _ count: Int) {
    let arrived = Atomic<Int>(0)
    let finished = Barrier(parties: 3)
    for (twin, executor) in [(1, first), (2, second)] {
      let thread = Thread { [self] in
        arrived.add(1, ordering: .sequentiallyConsistent)
        let deadline = ContinuousClock.now + .milliseconds(100)
        while arrived.load(ordering: .sequentiallyConsistent) < 2, ContinuousClock.now < deadline {}
        for _ in 0..<count { enqueue(on: executor, from: .twin(twin)) }
        _ = finished.arriveAndWait(timeout: Self.settleBound * timeScale)
      }
      thread.start()
    }
    _ = finished.arriveAndWait(timeout: Self.settleBound * timeScale)
  }

  /// A job of `during` is held while every executor is asked from a plain perform of `from`'s
  /// context (a job of another executor runs meanwhile) and from the program's thread.
  private func askDuringJob(_ during: Int, from: Int) {
    let running = Gate()
    let asked = Gate()
    enqueue(on: during, from: .programThread) { _ in
      running.open()
      _ = asked.wait(timeout: Self.holdBound * timeScale)
    }
    defer { asked.open() }
    guard running.wait(timeout: Self.holdBound * timeScale) else { return }
    let inPerform = Gate()
    places[from].container.perform { [self] in
      askEveryExecutor(from: .performOf(from))
      inPerform.open()
    }
    askEveryExecutor(from: .programThread)
    _ = inPerform.wait(timeout: Self.holdBound * timeScale)
  }
}

/// How many jobs and blocks a run still waits for, with a bounded wait for none.
private final class Outstanding: Sendable {
  private let count = Mutex(0)
  private let none = NSCondition()

  func add() { count.withLock { $0 += 1 } }

  func remove() {
    let left = count.withLock {
      $0 -= 1
      return $0
    }
    if left == 0 {
      none.lock()
      none.broadcast()
      none.unlock()
    }
  }

  func waitUntilNone(within bound: Duration) -> Bool {
    let deadline = Date(
      timeIntervalSinceNow: Double(bound.components.seconds)
        + Double(bound.components.attoseconds) / 1e18)
    none.lock()
    defer { none.unlock() }
    while count.withLock({ $0 }) > 0 {
      if !none.wait(until: deadline) { return count.withLock { $0 } == 0 }
    }
    return true
  }
}
