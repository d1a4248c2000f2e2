import WorkshopSupport

/// An ID a program hands to `renameAll(_:to:)`: an entity's, by the number of the configure that
/// made it, or one that no lookup may turn into an entity.
enum BatchRef: Sendable, Equatable {
  case entity(Int)
  /// An unsaved insert's, made in a context of its own.
  case temporary
  /// A saved entity of another store.
  case foreign
  /// A saved row of another entity (`Receipt`) in this store.
  case otherEntity
}

/// One call a random program makes. Controllers are named by number (`A` is 0); entities by
/// the number of the configure that made them (`E3`, named "e3"). Every name a call writes is
/// its own, so that the store's names say which call wrote them. A call that names an entity no
/// call made (the shrinker took its configure out) is skipped when the program runs.
enum EntityCall: Sendable, Equatable {
  case configure(controller: Int, entity: Int)
  case update(controller: Int, version: Int)
  case storedName(controller: Int)
  case entityID(controller: Int)
  /// The entity deleted by the check, in a context of its own: "elsewhere".
  case delete(entity: Int)
  /// `renameAll(_:to:)` (the stretch task).
  case renameAll(controller: Int, refs: [BatchRef], version: Int)

  static func configuredName(_ entity: Int) -> String { "e\(entity)" }

  /// The name the call writes, if it writes one.
  var written: String? {
    switch self {
    case .update(_, let version): "u\(version)"
    case .renameAll(_, _, let version): "r\(version)"
    default: nil
    }
  }

  var controller: Int? {
    switch self {
    case .configure(let controller, _), .update(let controller, _), .storedName(let controller),
      .entityID(let controller), .renameAll(let controller, _, _):
      controller
    case .delete: nil
    }
  }
}

/// One step of a program: calls made at once, from a task each; or writes made at once, each
/// held at the start of its save (a will-save observer) until the calls made meanwhile have
/// returned, so that these run while the writes have read and not yet saved.
enum EntityStep: Sendable, Equatable {
  case together([EntityCall])
  case held(writes: [EntityCall], meanwhile: [EntityCall])

  var calls: [EntityCall] {
    switch self {
    case .together(let calls): calls
    case .held(let writes, let meanwhile): writes + meanwhile
    }
  }
}

/// Makes random programs from a seed. It keeps a rough model as it goes, so that most calls
/// matter: updates and reads of entities that are there, deletes of entities their controller
/// has updated, batches of entities that are there with, half the time, one bad ID after a good
/// one. Calls that must meet are put together on purpose: a configure is held at its save while
/// the same controller is asked for its ID or updated; a delete is followed, in the next step, by
/// the controller's update and read of the entity; a batch that is due to fail by a batch of
/// the same controller that saves other entities (or none), so that what the failed batch left
/// behind in a context it kept would be saved there.
struct EntityProgramGenerator {
  static let controllers = 3
  private var random: SplitMix64
  private let batches: Bool

  init(seed: UInt64, batches: Bool) {
    random = SplitMix64(seed: seed)
    self.batches = batches
  }

  private mutating func pick(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

  private mutating func pick<Element>(_ elements: [Element]) -> Element {
    elements[pick(elements.count)]
  }

  mutating func program(rounds: Int) -> [EntityStep] {
    var kept: [Int: Int] = [:]
    var live: Set<Int> = []
    var gone: [Int] = []
    // Controllers whose update saved their entity since they configured it.
    var updated: Set<Int> = []
    var next = 1
    var followUps: [EntityCall] = []
    var steps: [EntityStep] = []
    for _ in 0..<rounds {
      let held = pick(2) == 0
      var writes: [EntityCall] = []
      var meanwhile: [EntityCall] = []
      func add(_ call: EntityCall, write: Bool) {
        if write || !held { writes.append(call) } else { meanwhile.append(call) }
      }
      for call in followUps {
        switch call {
        case .storedName, .entityID: add(call, write: false)
        default: add(call, write: true)
        }
      }
      followUps = []
      var configured: Set<Int> = []
      var deleted: Set<Int> = []
      for _ in 0..<(2 + pick(4)) {
        let controller = pick(Self.controllers)
        switch pick(batches ? 12 : 10) {
        case 0..<2
        where !configured.contains(controller)
          && (kept[controller] == nil || pick(3) == 0):
          add(.configure(controller: controller, entity: next), write: true)
          configured.insert(controller)
          next += 1
          // The same controller, while the configure is held at its save.
          if held, pick(4) != 0 {
            add(
              pick(2) == 0
                ? .entityID(controller: controller)
                : .update(controller: controller, version: next),
              write: false)
            next += 1
          }
        case 2..<4:
          add(.update(controller: controller, version: next), write: held ? pick(3) != 0 : true)
          next += 1
        case 4, 9:
          add(.storedName(controller: controller), write: false)
        case 5:
          add(.entityID(controller: controller), write: false)
        case 6 where !live.subtracting(deleted).isEmpty:
          let there = live.subtracting(deleted).sorted()
          let updatedOnes = there.filter { entity in
            kept.contains { $0.value == entity && updated.contains($0.key) }
          }
          let entity = pick(updatedOnes.isEmpty || pick(4) == 0 ? there : updatedOnes)
          add(.delete(entity: entity), write: true)
          deleted.insert(entity)
          if let owner = kept.first(where: { $0.value == entity })?.key {
            followUps += [
              .update(controller: owner, version: next), .storedName(controller: owner),
            ]
            next += 1
          }
        case 10..<12:
          let (refs, failing) = batch(live: live.sorted(), gone: gone)
          add(.renameAll(controller: controller, refs: refs, version: next), write: true)
          next += 1
          if failing {
            // The same controller saves a batch of other entities, or of none.
            let others = live.subtracting(refs.compactMap(\.entity)).sorted()
            let count = others.isEmpty ? 0 : pick(min(others.count, 2) + 1)
            let rest = (0..<count).map { _ in BatchRef.entity(pick(others)) }
            followUps.append(.renameAll(controller: controller, refs: rest, version: next))
            next += 1
          }
        default:
          continue
        }
      }
      let step: EntityStep =
        !held
        ? .together(writes)
        : writes.isEmpty ? .together(meanwhile) : .held(writes: writes, meanwhile: meanwhile)
      steps.append(step)
      // The generator's model assumes every call keeps the rule, as the solution does.
      for call in step.calls {
        switch call {
        case .configure(let controller, let entity):
          kept[controller] = entity
          live.insert(entity)
          updated.remove(controller)
        case .update(let controller, _):
          if let entity = kept[controller], live.contains(entity) { updated.insert(controller) }
        case .delete(let entity):
          live.remove(entity)
          gone.append(entity)
        default: break
        }
      }
    }
    return steps
  }

  /// One to three entities that are there, and, half the time, one bad ID after the first.
  private mutating func batch(live: [Int], gone: [Int]) -> (refs: [BatchRef], failing: Bool) {
    var refs: [BatchRef] = []
    for _ in 0..<(live.isEmpty ? 0 : 1 + pick(3)) {
      let ref = BatchRef.entity(pick(live))
      if !refs.contains(ref) { refs.append(ref) }
    }
    guard pick(2) == 0 else { return (refs, false) }
    var bad: [BatchRef] = [.temporary, .foreign, .otherEntity]
    if !gone.isEmpty { bad.append(.entity(pick(gone))) }
    refs.insert(pick(bad), at: refs.isEmpty ? 0 : 1 + pick(refs.count))
    return (refs, true)
  }
}
