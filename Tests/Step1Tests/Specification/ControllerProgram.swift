import WorkshopSupport

/// Makes random programs from a seed, for three controllers of one shape sharing one container.
/// It keeps a rough model as it goes, so that most calls matter: each controller is configured
/// early (so that most renames find an entity), and a controller written in one step is asked
/// its name in the next (so that a lost or wrong entity shows at once, not only if the random
/// calls come back to it). Half of each step's calls go to one controller, so that calls to the
/// same controller often meet. In most programs one controller's context is made read-only
/// partway; from then on half the calls go to it, and its first write, aimed at once (a rename
/// or a delete when it keeps an entity, else a configure()), must throw the refusal. A round or
/// more later its context is writable again, and a write aimed at it (a rename when it keeps an
/// entity, else a configure()) saves: with it, whatever a failed call left in the context.
///
/// Calls made at once to one controller are at most three, and never a delete() with a rename or
/// another delete of the same controller: the actor reads its ID before its block runs, so a
/// rename or a second delete that read it before a delete's block would find the entity gone,
/// which no order of whole calls explains. Step 1 does not ask the actor to guard against that.
struct ControllerProgramGenerator {
  static let controllers = 3
  private var random: SplitMix64
  private let deletes: Bool

  init(seed: UInt64, deletes: Bool) {
    random = SplitMix64(seed: seed)
    self.deletes = deletes
  }

  private mutating func pick(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

  mutating func program(rounds: Int) -> [ControllerStep] {
    var steps: [ControllerStep] = []
    // Which controllers keep an entity, roughly: the calls of a step are taken in the order made.
    var holding = Set<Int>()
    var version = 1
    var written = Set<Int>()
    // The rounds at which one controller's saves start to fail and succeed again, if they do.
    var failing: (at: Int, until: Int, controller: Int)?
    if pick(3) != 0 {
      let at = 1 + pick(max(rounds - 2, 1))
      failing = (at, at + 1 + pick(max(rounds - at - 1, 1)), pick(Self.controllers))
    }
    var readOnly: Int?
    for round in 0..<rounds {
      if let failing, failing.at == round {
        steps.append(.readOnly(controller: failing.controller, on: true))
        readOnly = failing.controller
      }
      if let failing, failing.until == round {
        steps.append(.readOnly(controller: failing.controller, on: false))
        readOnly = nil
      }
      var calls = written.sorted().map { ControllerCall.name(controller: $0) }
      written = []
      if let failing, failing.until == round {
        // Writable again: a write that saves writes whatever a failed call left in the context.
        let controller = failing.controller
        calls.append(
          holding.contains(controller)
            ? .rename(controller: controller, version: version)
            : .configure(controller: controller))
        if holding.contains(controller) { version += 1 } else { holding.insert(controller) }
        written.insert(controller)
      }
      if let failing, failing.at == round {
        // The first write once the saves fail, aimed so that every such program has one.
        let controller = failing.controller
        if !holding.contains(controller) {
          calls.append(.configure(controller: controller))
        } else if deletes && pick(2) == 0 {
          calls.append(.delete(controller: controller))
        } else {
          calls.append(.rename(controller: controller, version: version))
          version += 1
        }
        written.insert(controller)
      }
      var perController = [Int: [ControllerCall]]()
      for call in calls { perController[call.controller, default: []].append(call) }
      // Half the calls go to one controller: the one whose saves fail, once there is one.
      let focus = failing.flatMap { round >= $0.at ? $0.controller : nil } ?? pick(Self.controllers)
      for _ in 0..<(3 + pick(4)) {
        let controller = pick(2) == 0 ? focus : pick(Self.controllers)
        let mine = perController[controller, default: []]
        guard mine.count < 3 else { continue }
        let call: ControllerCall
        switch pick(10) {
        case _ where !holding.contains(controller) && pick(3) != 0:
          call = .configure(controller: controller)
        case 0..<2:
          call = .configure(controller: controller)
        case 2..<6:
          call = .rename(controller: controller, version: version)
          version += 1
        case 6..<8 where deletes:
          call = .delete(controller: controller)
        default:
          call = .name(controller: controller)
        }
        switch call {
        case .delete where mine.contains(where: \.isDeleteOrRename): continue
        case .rename where mine.contains(where: \.isDelete): continue
        default: break
        }
        calls.append(call)
        perController[controller, default: []].append(call)
        if call.writes { written.insert(controller) }
        switch call {
        case .configure where controller != readOnly: holding.insert(controller)
        case .delete where controller != readOnly: holding.remove(controller)
        default: break
        }
      }
      steps.append(.together(calls))
    }
    return steps
  }
}

extension ControllerCall {
  fileprivate var isDelete: Bool {
    if case .delete = self { return true }
    return false
  }

  fileprivate var isDeleteOrRename: Bool {
    switch self {
    case .delete, .rename: true
    default: false
    }
  }
}
