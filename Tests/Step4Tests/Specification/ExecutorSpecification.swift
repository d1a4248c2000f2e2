/// Step 4's rule, written once, as a model: for each executor, the jobs handed to it in order,
/// and the one that runs.
///
/// It knows nothing of threads or time. The history checks replay what really happened against
/// it, event by event: a job may start only on its own executor's context's queue, only while no
/// other job of that executor runs, and only when every job whose `enqueue` had returned before
/// its own `enqueue` was called has started; every job runs exactly once; and every isolation
/// answer is the one the context's perform scope gives at that moment.
struct ExecutorSpecification: Sendable {
  private struct Job {
    let executor: Int
    /// The index of the event at which its `enqueue` was called, and returned.
    let called: Int
    var returned: Int?
    var started = false
    var ended = false
  }

  private var jobs: [Int: Job] = [:]
  /// The job each executor runs now.
  private var running: [Int: Int] = [:]

  mutating func enqueues(_ job: Int, on executor: Int, at index: Int) {
    jobs[job] = Job(executor: executor, called: index)
  }

  mutating func enqueued(_ job: Int, at index: Int) {
    jobs[job]?.returned = index
  }

  /// A job starts, in the perform scope of the contexts of `queues`: why it may not, or nil.
  mutating func start(_ job: Int, onQueuesOf queues: [Int]) -> (ExecutorRule, String)? {
    guard let this = jobs[job], !this.started else {
      return (.exactlyOnce, "J\(job) had already started once: a job runs exactly once")
    }
    jobs[job]?.started = true
    let executor = this.executor
    guard queues.contains(executor) else {
      return (
        .itsOwnQueue,
        "J\(job), a job of \(ExecutorName(executor)), ran "
          + (queues.isEmpty
            ? "on no context's queue"
            : "on the queue of \(queues.map { "\(ExecutorName($0))" }.joined(separator: ", "))"
              + "'s context instead of its own")
      )
    }
    if let other = running[executor] {
      return (
        .oneAtATime,
        "J\(job) started while J\(other), another job of \(ExecutorName(executor)), still ran"
      )
    }
    running[executor] = job
    let overtaken = jobs.filter { key, earlier in
      key != job && earlier.executor == executor && !earlier.started
        && (earlier.returned.map { $0 < this.called } ?? false)
    }.keys.sorted()
    if let first = overtaken.first {
      return (
        .order,
        "J\(job) started before J\(first), whose enqueue on the same executor had returned "
          + "before J\(job)'s was called"
      )
    }
    return nil
  }

  mutating func end(_ job: Int) {
    guard let this = jobs[job] else { return }
    jobs[job]?.ended = true
    if running[this.executor] == job { running[this.executor] = nil }
  }

  /// An isolation answer: wrong when it is not what the perform scope says.
  func answer(
    _ executor: Int, at origin: Origin, _ answer: Bool?, truth: Bool
  ) -> (ExecutorRule, String)? {
    guard answer != truth else { return nil }
    return (
      .isolation,
      "\(ExecutorName(executor)).isIsolatingCurrentContext() answered "
        + "\(answer.map(String.init) ?? "nil") \(origin), where the code was "
        + "\(truth ? "" : "not ")in its context's perform"
    )
  }

  /// After the run: the jobs handed over that never started or never ended.
  var unfinished: [Int] {
    jobs.filter { !$0.value.ended }.keys.sorted()
  }
}

/// Replays a whole history against the model: the first event that breaks the rule, or the jobs
/// still due once the run settled.
enum HistoryReplay {
  static func judge(_ history: [ExecutorEvent], settled: Bool) -> ExecutorBreach? {
    var model = ExecutorSpecification()
    for (index, event) in history.enumerated() {
      var broke: (ExecutorRule, String)?
      switch event {
      case .enqueues(let job, let executor, _): model.enqueues(job, on: executor, at: index)
      case .enqueued(let job): model.enqueued(job, at: index)
      case .started(let job, let queues): broke = model.start(job, onQueuesOf: queues)
      case .ended(let job): model.end(job)
      case .answered(let executor, let origin, let answer, let truth):
        broke = model.answer(executor, at: origin, answer, truth: truth)
      }
      if let (rule, observed) = broke {
        return ExecutorBreach(at: index, rule: rule, observed: observed)
      }
    }
    let unfinished = model.unfinished
    guard !unfinished.isEmpty else { return nil }
    return ExecutorBreach(
      at: nil, rule: .exactlyOnce,
      observed: "\(unfinished.map { "J\($0)" }.joined(separator: ", ")) never ran to its end"
        + (settled ? "" : " (the run stopped waiting for them)"))
  }
}
