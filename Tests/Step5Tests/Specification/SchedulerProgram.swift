import WorkshopSupport

/// One step of a random program: something the checks do to the scheduler. Calls are named by
/// number (`C3`); a step that names a call the model has no use for at that moment (finishing
/// a call that waits, cancelling one that is gone) is skipped when the program runs, so that a
/// shrunk program, with steps taken out, still runs.
enum ProgramStep: Sendable, Equatable {
  case ask(Int, Access)
  /// A write that waits at most `limit` (the stretch task).
  case askCapped(Int, limit: Duration)
  /// A caller whose task is cancelled as it asks (`nanoseconds` after it calls the
  /// scheduler), or (`early`) before it asks.
  case askCancelled(Int, Access, early: Bool, nanoseconds: Int)
  case cancel(Int)
  case finish(Int, throwing: Bool)
  /// Let `finish` end and cancel the first waiter at the same moment.
  case race(cancel: Int, finish: Int)
  /// Let `finish` end just as the capped write's timer fires, moved by `offset`.
  case raceTimer(capped: Int, finish: Int, offset: Duration)
  /// Let `finish` end after the capped write's timer fired and before its code acts on it: the
  /// capped write's task and its children run on a thread of the run's (``DedicatedThread``),
  /// which holds their next job until the block has ended and the slot was handed on.
  case grantAfterTimer(capped: Int, finish: Int)
  /// Wait for a capped write's limit to pass.
  case expire(Int)
  case callBackIn(Int, Access)
}

extension ProgramStep {
  /// The calls whose outcome this step waits for: it is done only once they have started or
  /// returned.
  var awaits: Set<Int> {
    switch self {
    case .expire(let call), .raceTimer(let call, _, _), .race(let call, _),
      .grantAfterTimer(let call, _):
      [call]
    default: []
    }
  }
}

/// Which parts of the rule a program exercises: each Your turn adds some.
enum ProgramLevel: Int, Sendable, Comparable {
  /// Reads and writes that ask and finish, some blocks throwing.
  case admission
  /// And cancellations (before asking, as asking, while waiting, against a grant), and blocks
  /// that call back in.
  case cancellation

  static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Makes random programs from a seed. It keeps the model as it goes, so that most steps are
/// ones that matter: finishing a block that runs, cancelling a caller that waits, racing a
/// cancel or a timer against the grant of the caller at the front.
struct ProgramGenerator {
  private var random: SplitMix64
  private let level: ProgramLevel

  init(seed: UInt64, level: ProgramLevel) {
    random = SplitMix64(seed: seed)
    self.level = level
  }

  mutating func program(length: Int) -> [ProgramStep] {
    var model = SchedulerSpecification()
    var steps: [ProgramStep] = []
    var next = 1
    while steps.count < length {
      let running = model.running.keys.sorted()
      let access: Access = random.next() % 5 < 2 ? .write : .read
      let callers = running.count + model.waiting.count
      switch random.next() % 24 {
      case 0..<8 where callers < 7:
        steps.append(.ask(next, access))
        model.arrive(next, access)
        next += 1
      case 8..<14 where !running.isEmpty:
        let call = running[Int(random.next() % UInt64(running.count))]
        steps.append(.finish(call, throwing: random.next() % 4 == 0))
        model.finish(call)
      case 14 where level >= .cancellation && !model.waiting.isEmpty:
        let waiter = model.waiting[Int(random.next() % UInt64(model.waiting.count))].call
        steps.append(.cancel(waiter))
        model.leave(waiter, because: .cancelled)
      case 15 where level >= .cancellation, 20..<24 where level >= .cancellation:
        let early = random.next() % 3 == 0
        guard early || !model.wouldStart(access) else { continue }
        steps.append(
          .askCancelled(next, access, early: early, nanoseconds: Int(random.next() % 8_000)))
        next += 1
      case 16 where level >= .cancellation && running.count == 1 && !model.waiting.isEmpty:
        let waiter = model.waiting[0].call
        steps.append(.race(cancel: waiter, finish: running[0]))
        model.leave(waiter, because: .cancelled)
        model.finish(running[0])
      case 17 where level >= .cancellation && !running.isEmpty:
        let call = running[Int(random.next() % UInt64(running.count))]
        steps.append(random.next() % 2 == 0 ? .callBackIn(call, access) : .cancel(call))
      default:
        continue
      }
    }
    return steps
  }

  /// A capped write behind a running write that is let go `offset` from the capped write's
  /// limit: the grant and the timer together.
  static func timerRound(offset: Duration, limit: Duration = .milliseconds(2)) -> [ProgramStep] {
    [
      .ask(1, .write), .askCapped(2, limit: limit),
      .raceTimer(capped: 2, finish: 1, offset: offset), .finish(2, throwing: false),
    ]
  }

  /// A capped write behind a running write, whose block ends between the capped write's timer
  /// firing and the code that acts on it.
  static func heldTimerRound(limit: Duration = .milliseconds(10)) -> [ProgramStep] {
    [
      .ask(1, .write), .askCapped(2, limit: limit), .grantAfterTimer(capped: 2, finish: 1),
      .finish(2, throwing: false),
    ]
  }

  /// Callers cancelled as they ask while a write holds the slot, each cancel aimed by the run's
  /// staircase (a negative delay): at the moment the caller joins the queue.
  static func cancelRound(_ count: Int) -> [ProgramStep] {
    [.ask(1, .write)]
      + (0..<count).map {
        .askCancelled($0 + 2, $0 % 3 == 0 ? .read : .write, early: false, nanoseconds: -1)
      }
      + [.finish(1, throwing: false)]
  }
}
