import WorkshopSupport

/// One call a random program makes. Controllers are named by number (`A` is 0); entities by the
/// number of the call that made them (`E3`), and `E0` is a row of another store, whose ID this
/// store cannot use. Names are a group letter and the entity's number, `a3`, and after a rename
/// `a3.7`; a run puts its own prefix in front, so that runs never see each other's rows.
enum EntityCall: Sendable, Equatable {
  case configure(controller: Int, entity: Int, group: String)
  case rename(controller: Int, version: Int)
  case name(controller: Int)
  case snapshot(controller: Int)
  case delete(controller: Int)
  /// `adopt(_:)` of the ID of `entity`'s row.
  case adopt(controller: Int, entity: Int)
  /// `savedEntities(prefix:)` of a new controller: the names of a group, or all (nil).
  case saved(group: String?)
  /// Another context of the container saves a new row.
  case insertElsewhere(entity: Int, group: String)
  /// Another context of the container deletes the row and saves.
  case deleteElsewhere(entity: Int)

  var controller: Int? {
    switch self {
    case .configure(let controller, _, _), .rename(let controller, _), .name(let controller),
      .snapshot(let controller), .delete(let controller), .adopt(let controller, _):
      controller
    default: nil
    }
  }

  var group: String {
    switch self {
    case .configure(_, _, let group), .insertElsewhere(_, let group): group
    default: "a"
    }
  }

  static func name(entity: Int, group: String, version: Int = 0) -> String {
    version == 0 ? "\(group)\(entity)" : "\(group)\(entity).\(version)"
  }

  /// The entity a name (without the run's prefix) belongs to.
  static func entity(named name: String) -> Int? {
    Int(name.dropFirst().prefix { $0 != "." })
  }
}

/// Where a call is made from: a task of its own, the main actor, or another actor.
enum Caller: Sendable, Equatable, CaseIterable {
  case task, mainActor, otherActor
}

/// A call, and where it is made from.
struct PlacedCall: Sendable, Equatable {
  let call: EntityCall
  let from: Caller
}

/// One step of a program: calls made at once, from a task each, or the actor's context made
/// read-only (every save with changes throws) or writable again, before them.
enum EntityStep: Sendable, Equatable {
  case together([PlacedCall])
  case readOnly(Bool)
}

/// One piece of a program, as the shrinker takes pieces out: a call, or a switch of the
/// context, each with the number of its step.
enum ProgramPiece: Sendable, Equatable {
  case call(step: Int, PlacedCall)
  case readOnly(step: Int, Bool)

  static func pieces(_ steps: [EntityStep]) -> [ProgramPiece] {
    steps.enumerated().flatMap { index, step -> [ProgramPiece] in
      switch step {
      case .readOnly(let on): [.readOnly(step: index, on)]
      case .together(let calls): calls.map { .call(step: index, $0) }
      }
    }
  }

  static func steps(_ pieces: [ProgramPiece]) -> [EntityStep] {
    var steps: [EntityStep] = []
    var current: Int?
    var calls: [PlacedCall] = []
    func close() {
      if !calls.isEmpty { steps.append(.together(calls)) }
      calls = []
    }
    for piece in pieces {
      switch piece {
      case .readOnly(let step, let on):
        close()
        steps.append(.readOnly(on))
        current = step
      case .call(let step, let call):
        if step != current { close() }
        calls.append(call)
        current = step
      }
    }
    close()
    return steps
  }
}

/// Makes random programs from a seed. It keeps the model as it goes, so that most calls
/// matter: renames, reads and deletes of entities a controller keeps, adoptions of rows that are
/// there, were deleted, or belong to another store. Every deletion is followed, in the next step,
/// by an adoption of the deleted row, preferably by a controller that keeps another entity; an
/// adoption that is due to throw, by that controller's `name()`. While the context refuses to
/// save, a `configure(name:)` is followed by the same controller's `name()` and, with
/// `savedEntities`, by a list of its group, the context still refusing.
struct EntityProgramGenerator {
  static let controllers = 3
  private var random: SplitMix64
  private let lists: Bool

  init(seed: UInt64, lists: Bool) {
    random = SplitMix64(seed: seed)
    self.lists = lists
  }

  private mutating func pick(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

  private mutating func caller() -> Caller { Caller.allCases[pick(Caller.allCases.count)] }

  mutating func program(rounds: Int) -> [EntityStep] {
    var model = EntitySpecification()
    var steps: [EntityStep] = []
    var next = 1
    var version = 1
    var followUps: [EntityCall] = []
    var afterNext: [EntityCall] = []
    var keepReadOnly = false
    for _ in 0..<rounds {
      if model.readOnly, !keepReadOnly, pick(2) == 0 {
        steps.append(.readOnly(false))
        model.readOnly = false
      } else if !model.readOnly, pick(4) == 0 {
        steps.append(.readOnly(true))
        model.readOnly = true
      }
      keepReadOnly = false
      var calls: [EntityCall] = []
      for call in followUps where model.admits(call, besides: calls) { calls.append(call) }
      followUps = afterNext
      afterNext = []
      for _ in 0..<(2 + pick(4)) {
        let controller = pick(Self.controllers)
        let stored = model.stored.keys.sorted()
        let known = stored + model.gone.sorted() + [0]
        let call: EntityCall
        switch pick(16) {
        case 0..<3:
          call = .configure(controller: controller, entity: next, group: pick(2) == 0 ? "a" : "b")
        case 3..<5: call = .rename(controller: controller, version: version)
        case 5: call = .name(controller: controller)
        case 6..<8: call = .snapshot(controller: controller)
        case 8: call = .delete(controller: controller)
        case 9..<11:
          // A lookup that is due to fail matters most to a controller that keeps something.
          let entity = known[pick(known.count)]
          let adopter = model.stored[entity] == nil ? keeper(besides: entity, model) : controller
          call = .adopt(controller: adopter, entity: entity)
        case 11 where lists: call = .saved(group: [nil, "a", "b"][pick(3)])
        case 12:
          call = .insertElsewhere(entity: next, group: pick(2) == 0 ? "a" : "b")
        case 13 where !stored.isEmpty:
          call = .deleteElsewhere(entity: stored[pick(stored.count)])
        default: continue
        }
        guard model.admits(call, besides: calls) else { continue }
        calls.append(call)
        switch call {
        case .configure, .insertElsewhere: next += 1
        case .rename: version += 1
        default: break
        }
      }
      for call in calls {
        let (next, later) = self.followUps(after: call, model)
        followUps += next
        afterNext += later
      }
      if model.readOnly, calls.contains(where: { if case .configure = $0 { true } else { false } })
      {
        keepReadOnly = true
      }
      // The generator's model assumes every call keeps the rule, as the solution does.
      model.apply(step: calls)
      steps.append(.together(calls.map { PlacedCall(call: $0, from: caller()) }))
    }
    return steps
  }

  /// The looks that follow `call`: in the next step, and in the one after it.
  private mutating func followUps(after call: EntityCall, _ model: EntitySpecification)
    -> (next: [EntityCall], later: [EntityCall])
  {
    switch call {
    case .delete(let controller):
      guard let entity = model.holds[controller] else { return ([], []) }
      return adoptionOfGone(entity, model)
    case .deleteElsewhere(let entity):
      return adoptionOfGone(entity, model)
    case .configure(let controller, _, let group) where model.readOnly:
      return ([.name(controller: controller)] + (lists ? [.saved(group: group)] : []), [])
    case .adopt(let controller, let entity) where model.stored[entity] == nil:
      return ([.name(controller: controller)], [])
    default:
      return ([], [])
    }
  }

  /// An adoption of a deleted row by a controller that keeps something, when one does.
  private mutating func adoptionOfGone(_ entity: Int, _ model: EntitySpecification)
    -> (next: [EntityCall], later: [EntityCall])
  {
    ([.adopt(controller: keeper(besides: entity, model), entity: entity)], [])
  }

  /// A controller that keeps an entity other than `entity`, when one does, else any.
  private mutating func keeper(besides entity: Int, _ model: EntitySpecification) -> Int {
    let keeping = model.holds.filter { $0.value != entity }.keys.sorted()
    return keeping.isEmpty ? pick(Self.controllers) : keeping[pick(keeping.count)]
  }
}
