import Synchronization

/// Where code ran when it did something the history records.
enum Origin: Sendable, Equatable, CustomStringConvertible {
  /// The program's own thread, on no context's queue.
  case programThread
  /// A thread of the cooperative pool.
  case pool
  /// One of two threads released from a spinning barrier at the same instant.
  case twin(Int)
  /// A plain perform block of executor `e`'s context.
  case performOf(Int)
  /// A job of executor `e`: `J<job>`.
  case job(Int, of: Int)

  var description: String {
    switch self {
    case .programThread: "from the program's thread"
    case .pool: "from a thread of the pool"
    case .twin(let twin): "from twin thread \(twin), at the same instant as the other"
    case .performOf(let executor): "from a plain perform of \(ExecutorName(executor))'s context"
    case .job(let job, let executor): "from J\(job), a job of \(ExecutorName(executor))"
    }
  }
}

/// E0 is CoreDataActor's executor; the others are the spare, ledger and inbox actors'.
struct ExecutorName: CustomStringConvertible {
  let index: Int
  init(_ index: Int) { self.index = index }
  var description: String {
    ["CoreDataActor", "spare", "ledger", "inbox"].indices.contains(index)
      ? "E\(index) (" + ["CoreDataActor", "spare", "ledger", "inbox"][index] + ")" : "E\(index)"
  }
}

/// One thing that happened while a program ran, recorded by the code that did it, as it did it.
enum ExecutorEvent: Sendable, CustomStringConvertible {
  /// About to start a task on executor `e`'s actor: `Task.init` calls its `enqueue`.
  case enqueues(Int, on: Int, Origin)
  /// `Task.init` returned: the job has been handed to `enqueue`.
  case enqueued(Int)
  /// The job's first statement ran; `onQueuesOf`: the executors whose context's perform scope
  /// held it (the core's answer, `isOnContextQueue`).
  case started(Int, onQueuesOf: [Int])
  /// The job's last statement ran.
  case ended(Int)
  /// `isIsolatingCurrentContext()` of executor `e`, asked at `Origin`: `answer`, where the
  /// perform scope says `truth`.
  case answered(Int, Origin, answer: Bool?, truth: Bool)

  var description: String {
    switch self {
    case .enqueues(let job, let executor, let origin):
      "J\(job) is enqueued on \(ExecutorName(executor)) \(origin)"
    case .enqueued(let job): "    Task.init returned for J\(job)"
    case .started(let job, let queues):
      "    J\(job) starts, on the queue of "
        + (queues.isEmpty
          ? "no context"
          : queues.map { "\(ExecutorName($0))'s context" }
            .joined(separator: " and "))
    case .ended(let job): "    J\(job) ends"
    case .answered(let executor, let origin, let answer, let truth):
      "    \(ExecutorName(executor)).isIsolatingCurrentContext() \(origin) answered "
        + "\(answer.map(String.init) ?? "nil"), and the code was \(truth ? "" : "not ")"
        + "in its context's perform"
    }
  }

  /// True for what the program did, false for what the executors did.
  var isAction: Bool {
    if case .enqueues = self { true } else { false }
  }
}

/// The events of one run, in the order they happened (one lock orders them all).
final class ExecutorHistory: Sendable {
  private let entries = Mutex([ExecutorEvent]())

  func record(_ event: ExecutorEvent) {
    entries.withLock { $0.append(event) }
  }

  var all: [ExecutorEvent] { entries.withLock { $0 } }
}
