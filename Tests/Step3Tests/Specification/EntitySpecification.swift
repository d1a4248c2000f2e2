import ManagedObjectCore

/// How a call threw, as far as the rule cares.
enum ThrownKind: Sendable, Equatable, CustomStringConvertible {
  /// The actor's context refused to save (``PersistenceError/readOnlyContext(_:)``).
  case readOnly
  /// ``PersistenceError/objectDeleted(_:)``: the row was there once, and is gone.
  case deleted
  /// ``PersistenceError/foreignStore(_:)``: the ID belongs to another store.
  case foreignStore
  /// Anything else, as it describes itself.
  case other(String)

  init(_ error: any Error) {
    switch error as? PersistenceError {
    case .readOnlyContext?: self = .readOnly
    case .objectDeleted?: self = .deleted
    case .foreignStore?: self = .foreignStore
    case let error?:
      // The case's name, as the rule speaks of it: `objectNotFound`, not its message.
      self = .other(Mirror(reflecting: error).children.first?.label ?? "\(error)")
    case nil: self = .other(String(describing: error))
    }
  }

  var description: String {
    switch self {
    case .readOnly: "readOnlyContext"
    case .deleted: "objectDeleted"
    case .foreignStore: "foreignStore"
    case .other(let error): error
    }
  }
}

/// An entity as it leaves the actor: its ID and its name (without the run's prefix).
struct EntityRow: Sendable, Equatable {
  let id: ManagedObjectID
  let name: String
}

/// What a call answered, written down after it returned.
enum EntityOutcome: Sendable, Equatable, CustomStringConvertible {
  case done
  case threw(ThrownKind)
  /// `name()`.
  case text(String?)
  /// `snapshot()`.
  case snapshot(EntityRow?)
  /// `savedEntities(prefix:)`.
  case list([EntityRow])
  /// The call named an entity whose ID the run does not know, or broke the program's own
  /// rules after shrinking: not made.
  case skipped

  var description: String {
    switch self {
    case .done: "done"
    case .threw(let kind): "threw \(kind)"
    case .text(let text): text.map { "\"\($0)\"" } ?? "nil"
    case .snapshot(let row): row.map { "(\(Self.describe($0.id)), \"\($0.name)\")" } ?? "nil"
    case .list(let rows):
      "[" + rows.map { "(\(Self.describe($0.id)), \"\($0.name)\")" }.joined(separator: ", ") + "]"
    case .skipped: "skipped"
    }
  }

  static func describe(_ id: ManagedObjectID) -> String {
    id.isTemporaryID ? "a temporary ID" : "an ID"
  }
}

/// The rule of Step 3's controllers, as a model of the store and of the actor's one context.
///
/// Every controller works in the actor's one context. A call that saves stores its own change and
/// everything else the context holds unsaved; one whose save fails (the context refuses) throws,
/// and leaves the controller as it was, with the unsaved insert in the context: the next call
/// that saves, from any controller, stores it (Step 3 has no roll-back; Step 6 does). `name()`
/// and `snapshot()` answer for the entity the controller keeps, as the context sees it; a
/// snapshot carries the row's permanent ID. `adopt(_:)` keeps the entity an ID names if its row is
/// in the store; for a deleted row it throws `objectDeleted`, for another store's ID
/// `foreignStore`, and the controller keeps what it had. `savedEntities(prefix:)` lists what is
/// saved: the rows in the store (never the context's unsaved inserts), with their permanent IDs,
/// which any context can use, sorted by name. The core reports nothing but Step 3's known gap:
/// the actor's context used on `CoreDataActor`, whose jobs run on the cooperative pool.
struct EntitySpecification {
  /// The name of each entity in the store, by entity number.
  var stored: [Int: String] = [:]
  /// Entities whose rows were deleted.
  var gone: Set<Int> = []
  /// Inserts the actor's context holds unsaved (their save failed), by entity number.
  var unsaved: [Int: String] = [:]
  /// The entity each controller keeps.
  var holds: [Int: Int] = [:]
  /// Whether the actor's context refuses every save with changes.
  var readOnly = false

  /// Whether the program may make `call` now, besides the calls `placed` already made in the
  /// same step: one call per controller and per entity a step, so that calls made at once do
  /// not race for the same thing, and no write that could leave a dead object with a controller.
  /// No rename or delete while the context refuses to save, and no row deleted elsewhere while a
  /// controller keeps it: Step 3's given bodies keep a failed change in the one context, where
  /// every later save meets it again, and keep an object whose row is gone. The rule for that is
  /// Step 6's, with a roll-back.
  func admits(_ call: EntityCall, besides placed: [EntityCall]) -> Bool {
    if let controller = call.controller, placed.contains(where: { $0.controller == controller }) {
      return false
    }
    let taken = Set(placed.flatMap(touched))
    guard Set(touched(call)).isDisjoint(with: taken) else { return false }
    switch call {
    case .rename(let controller, _):
      return !readOnly && holds[controller] != nil
    case .delete(let controller):
      guard !readOnly, let entity = holds[controller] else { return false }
      return holds.filter { $0.value == entity }.count == 1
    case .adopt(_, let entity):
      return entity == 0 || stored[entity] != nil || gone.contains(entity)
    case .deleteElsewhere(let entity):
      return stored[entity] != nil && !holds.values.contains(entity)
    default:
      return true
    }
  }

  /// The entities a call reads or changes: the one its controller keeps, and the one it names.
  func touched(_ call: EntityCall) -> [Int] {
    var entities: [Int] = []
    if let controller = call.controller, let kept = holds[controller] { entities.append(kept) }
    switch call {
    case .configure(_, let entity, _), .adopt(_, let entity), .insertElsewhere(let entity, _),
      .deleteElsewhere(let entity):
      entities.append(entity)
    default: break
    }
    return entities
  }

  /// What `call` must answer, made on the model as it is before its step: nil for a list,
  /// judged with ``judgeList(_:prefix:after:ids:)``.
  func expected(_ call: EntityCall, ids: [Int: ManagedObjectID]) -> EntityOutcome? {
    switch call {
    case .configure: return readOnly ? .threw(.readOnly) : .done
    case .rename, .delete, .insertElsewhere, .deleteElsewhere: return .done
    case .name(let controller): return .text(holds[controller].flatMap { stored[$0] })
    case .snapshot(let controller):
      guard let entity = holds[controller], let name = stored[entity], let id = ids[entity] else {
        return .snapshot(nil)
      }
      return .snapshot(EntityRow(id: id, name: name))
    case .adopt(_, let entity):
      if entity == 0 { return .threw(.foreignStore) }
      return stored[entity] != nil ? .done : .threw(.deleted)
    case .saved: return nil
    }
  }

  /// What is wrong with `outcome` as the answer to `call`, or nil.
  func judge(_ call: EntityCall, _ outcome: EntityOutcome, ids: [Int: ManagedObjectID]) -> String? {
    guard outcome != .skipped, let expected = expected(call, ids: ids), outcome != expected else {
      return nil
    }
    if case .snapshot(let row?) = outcome, row.id.isTemporaryID {
      return "answered \(outcome), where \(expected) is due: a temporary ID names the object in "
        + "one context only"
    }
    return "answered \(outcome), where \(expected) is due"
  }

  /// What is wrong with `rows`, the answer of `savedEntities(prefix:)` made during a step that
  /// took the store from this model to `after`: a row the step did not touch must be listed
  /// with its name, one it touched may be listed as it was before or after, nothing else may be,
  /// each with the permanent ID the store gives it, in order of name.
  func judgeList(
    _ rows: [EntityRow], prefix: String, after: EntitySpecification, ids: [Int: ManagedObjectID]
  ) -> String? {
    var problems: [String] = []
    for row in rows {
      guard let entity = EntityCall.entity(named: row.name) else {
        problems.append("listed \"\(row.name)\", which no call saved")
        continue
      }
      let known = [stored[entity], after.stored[entity]].compactMap { $0 }
      if !known.contains(row.name) {
        if unsaved[entity] == row.name {
          problems.append(
            "listed \"\(row.name)\" with \(EntityOutcome.describe(row.id)): its insert is in the "
              + "actor's context, unsaved (the save of its configure(name:) failed)")
        } else {
          problems.append("listed \"\(row.name)\", which the store did not hold")
        }
      } else if row.id != ids[entity] {
        problems.append(
          "listed \"\(row.name)\" with \(EntityOutcome.describe(row.id)), not the permanent ID "
            + "of its row in the store")
      } else if !row.name.hasPrefix(prefix) {
        problems.append("listed \"\(row.name)\", whose name does not start with \"\(prefix)\"")
      }
    }
    let listed = rows.compactMap { EntityCall.entity(named: $0.name) }
    for (entity, name) in stored.sorted(by: { $0.key < $1.key })
    where name.hasPrefix(prefix) && after.stored[entity] == name && !listed.contains(entity) {
      problems.append("left out \"\(name)\", saved before the call and after it")
    }
    if Set(listed).count != listed.count { problems.append("listed an entity twice") }
    if rows.map(\.name) != rows.map(\.name).sorted() { problems.append("not sorted by name") }
    return problems.isEmpty ? nil : problems.joined(separator: "; ")
  }

  /// Takes in the effect of `call`, which answered as due.
  mutating func apply(_ call: EntityCall) {
    switch call {
    case .configure(let controller, let entity, _):
      let name = EntityCall.name(entity: entity, group: call.group)
      if readOnly {
        unsaved[entity] = name
      } else {
        stored[entity] = name
        holds[controller] = entity
      }
    case .rename(let controller, let version):
      if let entity = holds[controller] {
        stored[entity] = EntityCall.name(entity: entity, group: groupOf(entity), version: version)
      }
    case .delete(let controller):
      if let entity = holds.removeValue(forKey: controller) {
        stored[entity] = nil
        gone.insert(entity)
      }
    case .adopt(let controller, let entity):
      if stored[entity] != nil { holds[controller] = entity }
    case .insertElsewhere(let entity, let group):
      stored[entity] = EntityCall.name(entity: entity, group: group)
    case .deleteElsewhere(let entity):
      stored[entity] = nil
      gone.insert(entity)
    case .name, .snapshot, .saved:
      break
    }
  }

  /// Takes in a step whose calls are `calls`: each one's effect, then, if one of them saved, the
  /// unsaved inserts, which that save stored.
  mutating func apply(step calls: [EntityCall]) {
    let saves = calls.contains { call in
      switch call {
      case .configure, .rename: true
      case .delete(let controller): holds[controller] != nil
      default: false
      }
    }
    for call in calls { apply(call) }
    if saves && !readOnly {
      stored.merge(unsaved) { old, _ in old }
      unsaved = [:]
    }
  }

  /// The name a rename gives the entity its controller keeps: its number stays in it.
  func newName(for call: EntityCall) -> String? {
    guard case .rename(let controller, let version) = call, let entity = holds[controller] else {
      return nil
    }
    return EntityCall.name(entity: entity, group: groupOf(entity), version: version)
  }

  private func groupOf(_ entity: Int) -> String {
    stored[entity].map { String($0.prefix(1)) } ?? "a"
  }
}
