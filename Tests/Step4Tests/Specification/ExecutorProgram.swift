import WorkshopSupport

/// One step of a random program. Executors are numbered 0 to 3 (``ExecutorName``).
enum ProgramStep: Sendable, Equatable, CustomStringConvertible {
  /// `count` tasks started on executor `on`'s actor one after the other, from `from`: the
  /// program's thread, a thread of the pool, or a plain perform block of a context (nil: the pool).
  case burst(on: Int, count: Int, from: Int?, onThePool: Bool)
  /// A job of `inJobOf` starts `count` tasks on `on`'s actor (its own, or another's) and returns.
  case nested(on: Int, inJobOf: Int, count: Int)
  /// Two threads, released from a spinning barrier at the same instant, start `count` tasks each,
  /// one on `first`'s actor, the other on `second`'s.
  case twins(first: Int, second: Int, count: Int)
  /// While a job of `during` runs (held until the questions are answered), every executor is
  /// asked about isolation from a plain perform of `from`'s context and from the program's thread.
  case askDuringJob(of: Int, from: Int)

  var description: String {
    switch self {
    case .burst(let on, let count, let from, let pool):
      "\(count) task(s) on \(ExecutorName(on)) "
        + (from.map { "from a plain perform of \(ExecutorName($0))'s context" }
          ?? (pool ? "from a thread of the pool" : "from the program's thread"))
    case .nested(let on, let outer, let count):
      "a job of \(ExecutorName(outer)) starts \(count) task(s) on \(ExecutorName(on))"
    case .twins(let first, let second, let count):
      "two threads at once: \(count) task(s) each on \(ExecutorName(first)) and "
        + "\(ExecutorName(second))"
    case .askDuringJob(let during, let from):
      "isolation asked while a job of \(ExecutorName(during)) runs, from a perform of "
        + "\(ExecutorName(from))'s context and from the program's thread"
    }
  }
}

/// Random programs from a seed (SplitMix64): the same seed, the same programs.
struct ProgramGenerator {
  static let executors = 4
  private var random: SplitMix64

  init(seed: UInt64) {
    random = SplitMix64(seed: seed)
  }

  mutating func program(length: Int) -> [ProgramStep] {
    (0..<length).map { _ in step() }
  }

  private mutating func executor() -> Int { Int.random(in: 0..<Self.executors, using: &random) }

  /// Another executor than `one`.
  private mutating func other(than one: Int) -> Int {
    (one + Int.random(in: 1..<Self.executors, using: &random)) % Self.executors
  }

  private mutating func step() -> ProgramStep {
    let count = Int.random(in: 1...4, using: &random)
    switch Int.random(in: 0..<10, using: &random) {
    case 0..<3:
      let from: Int? = Bool.random(using: &random) ? executor() : nil
      // Half of those from a context's perform go to that context's own actor: code already
      // on the queue, outside any job, that hands the executor jobs.
      let on = from.flatMap { Bool.random(using: &random) ? $0 : nil } ?? executor()
      return .burst(
        on: on, count: count, from: from, onThePool: from == nil && Bool.random(using: &random))
    case 3..<6:
      let outer = executor()
      // Half of them on the job's own executor: a job that enqueues on its own queue.
      let target = Bool.random(using: &random) ? outer : other(than: outer)
      return .nested(on: target, inJobOf: outer, count: count)
    case 6..<8:
      let first = executor()
      return .twins(first: first, second: other(than: first), count: count + 2)
    default:
      let during = executor()
      return .askDuringJob(of: during, from: other(than: during))
    }
  }
}
