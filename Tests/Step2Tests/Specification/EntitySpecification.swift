import ManagedObjectCore

/// What a call threw, as the judge compares it.
enum Thrown: Sendable, Hashable {
  case notConfigured
  case persistence(PersistenceError)
  case other(String)
}

/// What a call answered, written down after it returned. A configure's answer is the ID that
/// `entityID` gave right after it, in the same task.
enum EntityOutcome: Sendable, Equatable {
  case done
  case id(ManagedObjectID?)
  case name(String)
  case threw(Thrown)
  /// The call named an entity no call made (the shrinker took it out): not made.
  case skipped
}

/// The IDs a program hands to `renameAll(_:to:)` that no lookup may turn into an entity, and
/// the entities' IDs, as the run learned them: what the judge needs to name the right errors.
struct KnownIDs: Sendable {
  var entities: [Int: ManagedObjectID] = [:]
  /// An unsaved insert's, made in a context of its own.
  var temporary: ManagedObjectID?
  /// A saved entity of another store.
  var foreign: ManagedObjectID?
  /// A saved row of another entity in this store.
  var otherEntity: ManagedObjectID?

  func id(of ref: BatchRef) -> ManagedObjectID? {
    switch ref {
    case .entity(let entity): entities[entity]
    case .temporary: temporary
    case .foreign: foreign
    case .otherEntity: otherEntity
    }
  }

  /// How a history names an ID: `E3`, or what it is.
  func name(of id: ManagedObjectID) -> String {
    if let entity = entities.first(where: { $0.value == id })?.key { return "E\(entity)" }
    if id == temporary { return "the unsaved ID" }
    if id == foreign { return "the other store's ID" }
    if id == otherEntity { return "the Receipt's ID" }
    return id.isTemporaryID ? "a temporary ID" : "an ID of no entity here"
  }
}

/// The rule of Step 2's controller, as a model of the store. A controller keeps the permanent
/// ID of the entity its last `configure(name:)` saved, and nothing else: `entityID` is nil or
/// that ID, never a temporary one. Every call turns the ID into the entity in a context of its
/// own: it answers for the store as it is, an entity deleted elsewhere throws `objectDeleted`
/// with its ID, and a controller not configured throws `NotConfiguredError`. A call that returns
/// has saved its change; one that throws leaves no trace, now or in a later save.
/// `renameAll(_:to:)` renames every entity it is handed in one save, or, when one ID is
/// temporary, deleted, of another store or of another entity, throws that lookup's error and
/// renames none. The core reports no violation, ever.
///
/// Calls made at once may meet: each is judged against the store before the step and the calls
/// made with it (a read sees the name before them or one a call of theirs that returned wrote; a
/// call on a controller that configures meanwhile sees the old entity or the new one). The store
/// after the step is read and judged, then taken as the next step's "before".
struct EntitySpecification {
  /// The name of each entity in the store, by entity number.
  var names: [Int: String] = [:]
  /// The entity each controller keeps: the one its last configure made.
  var kept: [Int: Int] = [:]
  /// Entities deleted elsewhere.
  var gone: Set<Int> = []
  /// The names written by calls that threw, so far: no read and no row may ever show them.
  var failed: Set<String> = []

  /// What the calls of one step may have done: read from the calls and their answers.
  struct Step {
    let before: EntitySpecification
    let calls: [(EntityCall, EntityOutcome)]
    let ids: KnownIDs
    /// The entity each controller's configure of this step made.
    var made: [Int: Int] = [:]
    var deleted: Set<Int> = []
    /// The writes that returned: the name each wrote, and its targets, one entity of each
    /// group (an update on a controller that configures meanwhile targets the old or the new).
    var writes: [(name: String, groups: [[Int]])] = []
    /// The names written by calls that threw, this step and before.
    var failedNames: Set<String>

    init(before: EntitySpecification, calls: [(EntityCall, EntityOutcome)], ids: KnownIDs) {
      self.before = before
      self.calls = calls
      self.ids = ids
      failedNames = before.failed
      for (call, outcome) in calls {
        switch (call, outcome) {
        case (.configure(let controller, let entity), .id(_?)): made[controller] = entity
        case (.delete(let entity), .done): deleted.insert(entity)
        default: break
        }
      }
      for (call, outcome) in calls {
        guard let name = call.written else { continue }
        switch outcome {
        case .done: writes.append((name, groups(of: call)))
        case .threw: failedNames.insert(name)
        default: break
        }
      }
    }

    /// The entities a call on `controller` may act on: the one kept before the step, and the
    /// one a configure of this step makes.
    func candidates(_ controller: Int) -> [Int] {
      [before.kept[controller], made[controller]].compactMap { $0 }
    }

    /// Whether `entity` is there to act on: made before and not deleted before, or made now.
    func isThere(_ entity: Int) -> Bool {
      before.names[entity] != nil || made.values.contains(entity)
    }

    private func groups(of call: EntityCall) -> [[Int]] {
      switch call {
      case .update(let controller, _): [candidates(controller).filter(isThere)]
      case .renameAll(_, let refs, _):
        refs.compactMap {
          if case .entity(let entity) = $0, isThere(entity) { [entity] } else { nil }
        }
      default: []
      }
    }

    /// The names `entity` may show during the step: its name before (or the configure's), or
    /// one a write of the step that returned gave it.
    func possibleNames(_ entity: Int) -> Set<String> {
      var names = Set(writes.filter { $0.groups.contains { $0.contains(entity) } }.map(\.name))
      if let name = before.names[entity] { names.insert(name) }
      if made.values.contains(entity) { names.insert(EntityCall.configuredName(entity)) }
      return names
    }

    /// `objectDeleted` for an entity the call may act on that is deleted, before or now.
    private func deletion(among entities: [Int]) -> Set<Thrown> {
      Set(
        entities.filter { before.gone.contains($0) || deleted.contains($0) }
          .compactMap { ids.entities[$0].map { .persistence(.objectDeleted($0)) } })
    }

    /// What is wrong with `outcome` as the answer to `call`, or nil.
    func judge(_ call: EntityCall, _ outcome: EntityOutcome) -> String? {
      if outcome == .skipped { return nil }
      switch call {
      case .configure(_, let entity):
        switch outcome {
        case .id(let id?) where ids.entities.contains { $0.key != entity && $0.value == id }:
          return "returned, and entityID is then \(ids.name(of: id)), another configure's"
        case .id(let id?) where !id.isTemporaryID: return nil
        case .id(_?):
          return "returned, and entityID is then a temporary ID, which no other context accepts"
        case .id(nil): return "returned, and entityID is then nil"
        default: return "answered \(describe(outcome)), where it must save a new entity"
        }
      case .delete:
        return outcome == .done ? nil : "(the check's own delete) answered \(describe(outcome))"
      case .entityID(let controller):
        let allowed = candidates(controller).compactMap { ids.entities[$0] }
        switch outcome {
        case .id(nil) where before.kept[controller] == nil: return nil
        case .id(let id?) where allowed.contains(id): return nil
        case .id(let id?) where id.isTemporaryID:
          return "answered a temporary ID, which no other context accepts"
        default: return "answered \(describe(outcome)), where \(due(call)) is due"
        }
      case .update(let controller, _):
        let entities = candidates(controller)
        switch outcome {
        case .done where entities.contains(where: isThere): return nil
        case .threw(.notConfigured) where before.kept[controller] == nil: return nil
        case .threw(let thrown) where deletion(among: entities).contains(thrown): return nil
        default: return "answered \(describe(outcome)), where \(due(call)) is due"
        }
      case .storedName(let controller):
        let entities = candidates(controller)
        switch outcome {
        case .name(let name)
        where entities.contains { isThere($0) && possibleNames($0).contains(name) }:
          return nil
        case .threw(.notConfigured) where before.kept[controller] == nil: return nil
        case .threw(let thrown) where deletion(among: entities).contains(thrown): return nil
        case .name(let name) where failedNames.contains(name):
          return "answered \"\(name)\", a name only a call that threw wrote"
        default: return "answered \(describe(outcome)), where \(due(call)) is due"
        }
      case .renameAll(_, let refs, _):
        let bad = badIDErrors(refs)
        let meanwhile = deletion(among: refs.compactMap(\.entity))
        switch outcome {
        case .done where bad.isEmpty: return nil
        case .threw(let thrown) where bad.contains(thrown) || meanwhile.contains(thrown): return nil
        default: return "answered \(describe(outcome)), where \(due(call)) is due"
        }
      }
    }

    /// The errors the lookups of `refs` give for the IDs no lookup may turn into an entity.
    func badIDErrors(_ refs: [BatchRef]) -> [Thrown] {
      refs.compactMap { ref -> Thrown? in
        guard let id = ids.id(of: ref) else { return nil }
        switch ref {
        case .temporary: return .persistence(.temporaryIDOutsideItsContext(id))
        case .foreign: return .persistence(.foreignStore(id))
        case .otherEntity: return .persistence(.entityMismatch(id, expected: "CoreDataEntity"))
        case .entity(let entity):
          return before.gone.contains(entity) ? .persistence(.objectDeleted(id)) : nil
        }
      }
    }

    /// What the rule makes `call` answer, in words.
    func due(_ call: EntityCall) -> String {
      switch call {
      case .entityID(let controller):
        let ids = candidates(controller).compactMap { self.ids.entities[$0] }
          .map(self.ids.name(of:))
        return ((before.kept[controller] == nil ? ["nil"] : []) + ids).joined(separator: " or ")
      case .update(let controller, _), .storedName(let controller):
        var answers: [String] = []
        if before.kept[controller] == nil { answers.append("NotConfiguredError") }
        for entity in candidates(controller) {
          if isThere(entity) {
            if case .storedName = call {
              answers += possibleNames(entity).sorted().map { "\"\($0)\"" }
            } else {
              answers.append("a normal return")
            }
          }
          if before.gone.contains(entity) || deleted.contains(entity) {
            answers.append("objectDeleted(E\(entity))")
          }
        }
        return Array(Set(answers)).sorted().joined(separator: " or ")
      case .renameAll(_, let refs, _):
        let bad = badIDErrors(refs)
        return bad.isEmpty ? "a normal return" : bad.map(describe).joined(separator: " or ")
      default: return "a normal return"
      }
    }

    /// What is wrong with the store after the step, which holds `stored` (an entity number's
    /// name, by the IDs the run knows; `unknown` are names of rows of no ID it knows), or nil.
    func judgeStore(_ stored: [Int: String], unknown: [String]) -> String? {
      if let name = unknown.first {
        return "the store holds a row \"\(name)\" that no configure of these controllers made"
      }
      let live = Set(before.names.keys).union(made.values).subtracting(deleted)
      let missing = live.subtracting(stored.keys).sorted()
      if let entity = missing.first {
        return
          "E\(entity) is not in the store, where \(before.names[entity].map { "\"\($0)\"" } ?? "it") is due"
      }
      let extra = Set(stored.keys).subtracting(live).sorted()
      if let entity = extra.first {
        return "the store still holds E\(entity) (\"\(stored[entity]!)\"), deleted elsewhere"
      }
      for entity in live.sorted() {
        let name = stored[entity]!
        if failedNames.contains(name) {
          return "E\(entity) holds \"\(name)\", a name only a call that threw wrote"
        }
        var allowed = Set(
          writes.filter { $0.groups.contains { $0.contains(entity) } }.map(\.name))
        let written = writes.contains { $0.groups.contains([entity]) }
        if !written {
          if let name = before.names[entity] { allowed.insert(name) }
          if made.values.contains(entity) { allowed.insert(EntityCall.configuredName(entity)) }
        }
        if !allowed.contains(name) {
          return "E\(entity) holds \"\(name)\", where "
            + allowed.sorted().map { "\"\($0)\"" }.joined(separator: " or ") + " is due"
        }
      }
      for write in writes {
        // A write that may have gone to an entity deleted meanwhile may be lost with it.
        for group in write.groups where !group.contains(where: deleted.contains) {
          let there = group.filter(live.contains)
          guard !there.isEmpty else { continue }
          let landed = there.contains { entity in
            writes.contains {
              $0.name == stored[entity] && $0.groups.contains { $0.contains(entity) }
            }
          }
          if !landed {
            let holds = there.map { "E\($0) holds \"\(stored[$0]!)\"" }.joined(separator: ", ")
            return "a call that returned wrote \"\(write.name)\", and it is nowhere: \(holds)"
          }
        }
      }
      return nil
    }

    func describe(_ outcome: EntityOutcome) -> String {
      switch outcome {
      case .done: "a normal return"
      case .id(let id): id.map(ids.name(of:)) ?? "nil"
      case .name(let name): "\"\(name)\""
      case .threw(let thrown): "threw " + describe(thrown)
      case .skipped: "skipped"
      }
    }

    func describe(_ thrown: Thrown) -> String {
      switch thrown {
      case .notConfigured: "NotConfiguredError"
      case .other(let text): text
      case .persistence(let error):
        switch error {
        case .objectDeleted(let id): "objectDeleted(\(ids.name(of: id)))"
        case .objectNotFound(let id): "objectNotFound(\(ids.name(of: id)))"
        case .foreignStore(let id): "foreignStore(\(ids.name(of: id)))"
        case .temporaryIDOutsideItsContext(let id):
          "temporaryIDOutsideItsContext(\(ids.name(of: id)))"
        case .entityMismatch(let id, let expected):
          "entityMismatch(\(ids.name(of: id)), expected: \(expected))"
        default: "\(error)"
        }
      }
    }
  }

  /// Takes in a step the judge found right: the store it left, the entities configured, the
  /// entities deleted.
  mutating func adopt(_ step: Step, stored: [Int: String]) {
    names = stored
    for (controller, entity) in step.made { kept[controller] = entity }
    gone.formUnion(step.deleted)
    failed = step.failedNames
  }
}

extension BatchRef {
  var entity: Int? {
    if case .entity(let entity) = self { entity } else { nil }
  }
}
