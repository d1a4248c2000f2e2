import ManagedObjectCore

/// One call a random program makes to a controller. Controllers are named by number (`A` is 0);
/// each controller is the subject's shape (class or actor), and all of them share one container.
enum ControllerCall: Sendable, Equatable {
  case configure(controller: Int)
  /// `rename(to:)` with a name no other call gives: `text(controller:version:)`.
  case rename(controller: Int, version: Int)
  case name(controller: Int)
  /// The stretch task's call.
  case delete(controller: Int)

  var controller: Int {
    switch self {
    case .configure(let controller), .rename(let controller, _), .name(let controller),
      .delete(let controller):
      controller
    }
  }

  /// Whether the call saves when it has something to save.
  var writes: Bool {
    if case .name = self { return false }
    return true
  }

  /// The name a rename gives: unique, so that the store's names say which call wrote them.
  static func text(controller: Int, version: Int) -> String {
    "\(letter(controller))\(version)"
  }

  static func letter(_ controller: Int) -> String {
    String(UnicodeScalar(UInt8(65 + controller)))
  }

  var described: String {
    let name = Self.letter(controller)
    return switch self {
    case .configure: "\(name).configure()"
    case .rename(_, let version):
      "\(name).rename(to: \"\(Self.text(controller: controller, version: version))\")"
    case .name: "\(name).name()"
    case .delete: "\(name).delete()"
    }
  }
}

/// One step of a program: calls made at once, from a task each; or a controller's context made
/// read-only (`on`: every save with changes throws) or writable again.
enum ControllerStep: Sendable, Equatable {
  case together([ControllerCall])
  case readOnly(controller: Int, on: Bool)
}

/// What a call answered, written down after it returned.
enum ControllerOutcome: Sendable, Equatable, CustomStringConvertible {
  /// configure(), rename(to:) or delete() returned normally.
  case done
  /// What name() answered.
  case name(String?)
  /// The call threw: the read-only context's refusal, or (`threw`) anything else.
  case refused
  case threw(String)

  var description: String {
    switch self {
    case .done: "returned"
    case .name(let name): name.map { "\"\($0)\"" } ?? "nil"
    case .refused: "threw: the context is read-only"
    case .threw(let error): "threw \(error)"
    }
  }
}

/// The rule of Step 1's controllers, as a model of what each controller holds and what the
/// store holds. `configure()` saves a new entity (named "") and keeps it; the one it kept before
/// stays in the store, kept by nobody. `rename(to:)` renames the kept entity and saves;
/// `delete()` deletes it and saves, and the controller keeps nothing; with nothing kept, both
/// return and do nothing. `name()` reads the kept entity's name, nil when there is none. Calls
/// made at once run whole, one after another, in some order: a history keeps the rule when some
/// order of each step's calls gives every answer recorded and the store seen after the step. No
/// call may make the core report a violation.
///
/// A call whose save fails (its context is read-only) throws that error and changes nothing: the
/// store stays as it was, the controller keeps what it kept before the call (after a failed
/// configure(), the entity of the configure() before, or nothing), and no later save writes any
/// of the failed call's changes. Core Data leaves a failed save's changes in the context, where
/// the next save would write them: the controller rolls them back. The context is made writable
/// again later in most programs, so that a change left behind reaches the store and is seen.
struct ControllerSpecification: Hashable, Sendable {
  enum Holds: Hashable, Sendable {
    case nothing
    case entity(name: String)

    var name: String? {
      if case .entity(let name) = self { return name }
      return nil
    }
  }

  var holds: [Holds]
  /// The names of the stored entities no controller keeps (sorted).
  var orphans: [String] = []
  var readOnly: Set<Int> = []

  init(controllers: Int) {
    holds = Array(repeating: .nothing, count: controllers)
  }

  /// The names of every stored entity, sorted: what a fresh context must fetch.
  var stored: [String] {
    (orphans + holds.compactMap(\.name)).sorted()
  }

  private mutating func orphan(_ name: String?) {
    guard let name else { return }
    orphans.append(name)
    orphans.sort()
  }

  /// What `call`, run alone on this state, must answer.
  func due(_ call: ControllerCall) -> ControllerOutcome {
    let held = holds[call.controller]
    let refusing = readOnly.contains(call.controller)
    return switch call {
    case .configure: refusing ? .refused : .done  // an insert always has something to save
    case .rename, .delete: held == .nothing || !refusing ? .done : .refused
    case .name: .name(held.name)
    }
  }

  /// Runs `call`, which answered `outcome`, on this state: nil, or what is wrong with the answer.
  mutating func apply(_ call: ControllerCall, _ outcome: ControllerOutcome) -> String? {
    let due = due(call)
    let controller = call.controller
    guard outcome == due else {
      return "\(call.described) answered \(outcome), where \(due) is due"
    }
    // A refused call changes nothing.
    guard outcome != .refused else { return nil }
    switch call {
    case .configure:
      orphan(holds[controller].name)
      holds[controller] = .entity(name: "")
    case .rename(_, let version) where holds[controller] != .nothing:
      holds[controller] = .entity(
        name: ControllerCall.text(controller: controller, version: version))
    case .delete:
      holds[controller] = .nothing
    default: break
    }
    return nil
  }
}

/// Judges one step of calls made at once against a set of states the history so far allows.
enum StepJudge {
  /// The states that some order of the step's calls leads to, agreeing with every answer and
  /// with `stored`, from any of `states`; or, when none does, what is wrong (an answer, or the
  /// store) and which part of the rule it breaks.
  static func judge(
    _ calls: [(ControllerCall, ControllerOutcome)], stored: [String],
    from states: Set<ControllerSpecification>
  ) -> Result<Set<ControllerSpecification>, Breach> {
    var next: Set<ControllerSpecification> = []
    var answerProblem: String?
    var storeCandidates: Set<[String]> = []
    let controllers = Set(calls.map(\.0.controller)).sorted()
    for state in states {
      // Controllers do not share entities: each one's calls are ordered on their own, and the
      // states they lead to are combined.
      var combined: [ControllerSpecification] = [state]
      for controller in controllers {
        let mine = calls.filter { $0.0.controller == controller }
        var endings: Set<ControllerSpecification> = []
        var firstProblem: String?
        for order in permutations(mine.count) {
          var local = state
          var problem: String?
          for index in order {
            if let wrong = local.apply(mine[index].0, mine[index].1) {
              problem = wrong
              break
            }
          }
          if let problem {
            firstProblem = firstProblem ?? problem
          } else {
            endings.insert(local)
          }
        }
        if endings.isEmpty {
          answerProblem = answerProblem ?? firstProblem
          combined = []
          break
        }
        // Take this controller's part of each ending into each state combined so far.
        var merged: [ControllerSpecification] = []
        for partial in combined {
          for ending in endings {
            var joined = partial
            joined.holds[controller] = ending.holds[controller]
            let added = difference(ending.orphans, state.orphans)
            joined.orphans = (joined.orphans + added).sorted()
            merged.append(joined)
          }
        }
        combined = Array(Set(merged))
      }
      for candidate in combined {
        if candidate.stored == stored {
          next.insert(candidate)
        } else {
          storeCandidates.insert(candidate.stored)
        }
      }
    }
    if !next.isEmpty { return .success(next) }
    if let answerProblem, storeCandidates.isEmpty {
      return .failure(Breach(rule: .answer, observed: answerProblem))
    }
    let due = storeCandidates.sorted { $0.description < $1.description }
      .map(\.description).joined(separator: " or ")
    return .failure(
      Breach(
        rule: .store,
        observed: "the store holds \(stored), where the calls that returned leave \(due)"))
  }

  /// Every order of `count` items, as lists of indices.
  static func permutations(_ count: Int) -> [[Int]] {
    guard count > 1 else { return [Array(0..<count)] }
    var result: [[Int]] = []
    for rest in permutations(count - 1) {
      for position in 0...rest.count {
        var order = rest
        order.insert(count - 1, at: position)
        result.append(order)
      }
    }
    return result
  }

  /// `all` without one of each of `some` (multisets, sorted or not).
  static func difference(_ all: [String], _ some: [String]) -> [String] {
    var rest = all
    for name in some {
      if let index = rest.firstIndex(of: name) { rest.remove(at: index) }
    }
    return rest
  }
}

/// Where a history broke the rule: which part, and what was seen.
struct Breach: Error, Equatable {
  enum Rule: Sendable, Equatable {
    /// `violation`: the core reported code off its context's queue (or in a foreign context);
    /// `invalidatedRead`: only uses of invalidated objects, not all of them discarded inserts (a
    /// deletion saved, say); `discardedInsert`: only uses of inserts a rollback discarded (kept
    /// although their save threw).
    case answer, store, violation, invalidatedRead, discardedInsert

    /// Which part of the rule `violations` (not empty) break.
    init(_ violations: [ConcurrencyViolation]) {
      if violations.allSatisfy({
        $0.kind == .invalidatedObject && $0.location.hasPrefix("after its insertion was rolled")
      }) {
        self = .discardedInsert
      } else if violations.allSatisfy({ $0.kind == .invalidatedObject }) {
        self = .invalidatedRead
      } else {
        self = .violation
      }
    }
  }
  let rule: Rule
  let observed: String
}
