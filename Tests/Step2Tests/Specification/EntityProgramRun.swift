import ManagedObjectCore
import Synchronization
import WorkshopSupport

/// What happened when a program ran, in order, with where it first broke the rule.
struct EntityHistory: Sendable {
  enum Event: Sendable {
    case together([(EntityCall, EntityOutcome)])
    case held(writes: [(EntityCall, EntityOutcome)], meanwhile: [(EntityCall, EntityOutcome)])
    case store([Int: String], unknown: [String])
  }

  /// Which part of the rule broke: a failure shrinks to a program that breaks the same.
  enum Rule: Sendable, Equatable {
    case answer, store, violation
  }

  var events: [Event] = []
  var ids = KnownIDs()
  /// Where it broke (an index into `events`), which part, and what was seen.
  var breach: (at: Int, rule: Rule, observed: String)?
}

/// Another entity, for an ID of the wrong type.
final class Receipt: ManagedObject {
  @Attribute var total: Int = 0
}

/// Holds the saves of a step's writes at their start until the calls made meanwhile (whose own
/// saves go through) have returned: a will-save observer runs inside the save, on the saving context's queue, before
/// anything is written. Bounded: a save is let go after 5 s whatever happens.
final class SaveHold: Sendable {
  private struct State {
    var holding = false
    var held = 0
    var gate = Gate()
  }

  private let state = Mutex(State())

  /// Holds every save from now on.
  func begin() {
    state.withLock { $0 = State(holding: true, held: 0, gate: Gate()) }
  }

  /// How many saves are held.
  var held: Int { state.withLock { $0.held } }

  /// Holds no more saves; those held stay held.
  func stopHolding() {
    state.withLock { $0.holding = false }
  }

  /// Lets the held saves go, and holds no more.
  func release() {
    let gate = state.withLock { state in
      state.holding = false
      return state.gate
    }
    gate.open()
  }

  /// The observer: a save about to write.
  func arrive() {
    let gate: Gate? = state.withLock { state in
      guard state.holding else { return nil }
      state.held += 1
      return state.gate
    }
    gate?.wait(timeout: .seconds(5))
  }
}

/// Counts the calls of a step that returned.
final class Returned: Sendable {
  private let count = Mutex(0)
  func add() { count.withLock { $0 += 1 } }
  var value: Int { count.withLock { $0 } }
}

/// Runs a program on three controllers of one store, each step's calls from a task each, and
/// judges every answer, the store after each step, and the violations, against
/// ``EntitySpecification``. It stops at the first breach.
enum EntityProgramRun {
  static func run(_ steps: [EntityStep], _ subject: Subject) async throws -> EntityHistory {
    try await withTimeout(.seconds(20), "a random program of calls to controllers") {
      try await runUnbounded(steps, subject)
    }
  }

  private static func runUnbounded(_ steps: [EntityStep], _ subject: Subject) async throws
    -> EntityHistory
  {
    let container = PersistentContainer(name: "step2-histories")
    let controllers = (0..<EntityProgramGenerator.controllers).map { _ in
      subject.make(container)
    }
    let elsewhere = PersistentContainer(name: "step2-histories-elsewhere")
    var history = EntityHistory()
    history.ids.foreign = try await subject.savedID(elsewhere)
    history.ids.temporary = await subject.unsavedID(container)
    history.ids.otherEntity = try await container.performBackgroundTask { context in
      let receipt = Receipt(context: context)
      try context.save()
      return receipt.objectID
    }
    let hold = SaveHold()
    let token = container.addWillSaveObserver { _ in hold.arrive() }
    defer {
      container.removeSaveObserver(token)
      hold.release()
    }
    var model = EntitySpecification()
    for step in steps {
      let known = history.ids
      let call: @Sendable (EntityCall) async -> EntityOutcome = { call in
        await perform(call, controllers, known, subject, container)
      }
      let pairs: [(EntityCall, EntityOutcome)]
      switch step {
      case .together(let calls):
        pairs = Array(zip(calls, await together(calls, call, Returned())))
        history.events.append(.together(pairs))
      case .held(let writes, let meanwhile):
        hold.begin()
        let (wrote, looked) = (Returned(), Returned())
        async let writeOutcomes = together(writes, call, wrote)
        // Until each write is held at its save, or has returned (bounded: a write that waits
        // for a held one, in a context they share, never gets there).
        _ = await eventually(within: .milliseconds(300)) {
          hold.held + wrote.value >= writes.count
        }
        // The calls made meanwhile save freely.
        hold.stopHolding()
        async let lookOutcomes = together(meanwhile, call, looked)
        _ = await eventually(within: .milliseconds(300)) { looked.value >= meanwhile.count }
        hold.release()
        let (first, second) = (
          Array(zip(writes, await writeOutcomes)), Array(zip(meanwhile, await lookOutcomes))
        )
        pairs = first + second
        history.events.append(.held(writes: first, meanwhile: second))
      }
      for (call, outcome) in pairs {
        if case .configure(_, let entity) = call, case .id(let id?) = outcome {
          history.ids.entities[entity] = id
        }
      }
      // A violation first: code off its context's queue explains any answer.
      let violations = container.violations + elsewhere.violations
      if !violations.isEmpty {
        history.breach = (
          history.events.count - 1, .violation,
          "\(violations.count) violation(s):\n" + describe(violations, limit: 4)
        )
        return history
      }
      let judged = EntitySpecification.Step(before: model, calls: pairs, ids: history.ids)
      let wrong = pairs.compactMap { call, outcome in
        judged.judge(call, outcome).map { "\(call.described): \($0)" }
      }
      if !wrong.isEmpty {
        history.breach = (history.events.count - 1, .answer, wrong.joined(separator: "; "))
        return history
      }
      let rows = try await subject.storedRows(container)
      var stored: [Int: String] = [:]
      var unknown: [String] = []
      for (id, name) in rows {
        if let entity = history.ids.entities.first(where: { $0.value == id })?.key {
          stored[entity] = name
        } else {
          unknown.append(name)
        }
      }
      history.events.append(.store(stored, unknown: unknown.sorted()))
      if let problem = judged.judgeStore(stored, unknown: unknown.sorted()) {
        history.breach = (history.events.count - 1, .store, problem)
        return history
      }
      model.adopt(judged, stored: stored)
    }
    return history
  }

  /// Runs `calls` at once, from a task each, and gives their answers in order.
  private static func together(
    _ calls: [EntityCall], _ perform: @escaping @Sendable (EntityCall) async -> EntityOutcome,
    _ returned: Returned
  ) async -> [EntityOutcome] {
    await withTaskGroup(of: (Int, EntityOutcome).self) { group in
      for (index, call) in calls.enumerated() {
        // Off the cooperative pool: a call that blocks its thread (`performAndWait` on a context
        // whose save is held) would hold both of its threads, and the bounded waits of this run,
        // which look from the pool, could not end until the held saves were let go, 5 s later
        // (a whole step took 15.7 s on such a wrong answer, on a quiet machine).
        group.addTask(executorPreference: OffThePoolExecutor.shared) {
          let outcome = await perform(call)
          returned.add()
          return (index, outcome)
        }
      }
      var outcomes = [EntityOutcome](repeating: .skipped, count: calls.count)
      for await (index, outcome) in group { outcomes[index] = outcome }
      return outcomes
    }
  }

  private static func perform(
    _ call: EntityCall, _ controllers: [any Controller], _ ids: KnownIDs, _ subject: Subject,
    _ container: PersistentContainer
  ) async -> EntityOutcome {
    do {
      switch call {
      case .configure(let controller, let entity):
        try await controllers[controller].configure(name: EntityCall.configuredName(entity))
        return .id(controllers[controller].entityID)
      case .update(let controller, _):
        try await controllers[controller].update(call.written!)
        return .done
      case .storedName(let controller):
        return .name(try await controllers[controller].storedName())
      case .entityID(let controller):
        return .id(controllers[controller].entityID)
      case .delete(let entity):
        guard let id = ids.entities[entity] else { return .skipped }
        try await deleteElsewhere(id, in: container)
        return .done
      case .renameAll(let controller, let refs, _):
        let batch = refs.compactMap(ids.id(of:))
        guard batch.count == refs.count else { return .skipped }
        try await controllers[controller].renameAll(batch, to: call.written!)
        return .done
      }
    } catch let error as PersistenceError {
      return .threw(.persistence(error))
    } catch {
      return .threw(Step2Tests.isNotConfigured(error) ? .notConfigured : .other("\(error)"))
    }
  }

  /// Deletes the entity with `id` from a context of its own, as another part of an app would;
  /// its save wins over a rename saved meanwhile.
  private static func deleteElsewhere(_ id: ManagedObjectID, in container: PersistentContainer)
    async throws
  {
    let context = container.newBackgroundContext()
    context.name = "elsewhere"
    context.mergePolicy = .mergeByPropertyObjectTrump
    try await context.perform {
      context.delete(try context.existingObject(with: id))
      try context.save()
    }
  }
}

extension EntityCall {
  var described: String {
    func name(_ controller: Int) -> String { String(UnicodeScalar(UInt8(65 + controller))) }
    return switch self {
    case .configure(let controller, let entity):
      "\(name(controller)).configure(name: \"\(Self.configuredName(entity))\") as E\(entity)"
    case .update(let controller, _): "\(name(controller)).update(\"\(written!)\")"
    case .storedName(let controller): "\(name(controller)).storedName()"
    case .entityID(let controller): "\(name(controller)).entityID"
    case .delete(let entity): "E\(entity) deleted elsewhere"
    case .renameAll(let controller, let refs, _):
      "\(name(controller)).renameAll([\(refs.map(\.described).joined(separator: ", "))], "
        + "to: \"\(written!)\")"
    }
  }
}

extension BatchRef {
  var described: String {
    switch self {
    case .entity(let entity): "E\(entity)"
    case .temporary: "unsaved"
    case .foreign: "other store's"
    case .otherEntity: "a Receipt's"
    }
  }
}
