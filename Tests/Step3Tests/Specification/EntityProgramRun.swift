import ManagedObjectCore
import Synchronization
import WorkshopSupport

/// What happened when a program ran, in order, with where it first broke the rule.
struct EntityHistory: Sendable {
  enum Event: Sendable {
    case readOnly(Bool)
    case together([(PlacedCall, EntityOutcome)])
    case store([String])
  }

  /// Which part of the rule broke: a failure shrinks to a program that breaks the same.
  enum Rule: Sendable, Equatable {
    case answer, list, store, violation
  }

  var events: [Event] = []
  /// What the run's names start with.
  var prefix = ""
  /// Where it broke (an index into `events`), which part, and what was seen.
  var breach: (at: Int, rule: Rule, observed: String)?
}

/// A controller handed to the task that calls it. A program calls each controller at most once
/// a step, and a step's calls end before the next step's begin.
struct ControllerBox: @unchecked Sendable {
  let controller: any Controller
}

/// An actor other than CoreDataActor and the main actor, to call from.
actor OtherActor {
  func call(
    _ call: EntityCall, _ box: ControllerBox?, _ run: EntityRunContext, newName: String?
  ) async -> EntityOutcome {
    await EntityProgramRun.perform(call, box, run, newName: newName)
  }
}

/// What every call of a run needs: the side, the run's prefix, the IDs known so far.
struct EntityRunContext: Sendable {
  let subject: Subject
  let prefix: String
  let ids: [Int: ManagedObjectID]
  let foreign: ManagedObjectID
}

/// Runs a program on three controllers of one side, each step's calls from a task each (some
/// from the main actor or another actor), and judges every answer, the store after each step,
/// and the violations, against ``EntitySpecification``. It stops at the first breach.
enum EntityProgramRun {
  private static let runs = Atomic<Int>(0)
  private static let other = OtherActor()

  static func run(_ steps: [EntityStep], _ subject: Subject) async throws -> EntityHistory {
    let context = try subject.actorContext()
    defer { context.isReadOnly = false }
    let history = try await withTimeout(.seconds(20), "a random program of calls to controllers") {
      try await runUnbounded(steps, subject, context)
    }
    // What a program left unsaved is saved now, and its rows deleted: no later program sees
    // them, and the store stays small.
    context.isReadOnly = false
    try await withTimeout(.seconds(20), "a save of the actor's context") {
      try await context.perform { try context.save() }
      try await subject.deleteRows(history.prefix)
    }
    subject.container().removeAllViolations()
    return history
  }

  private static func runUnbounded(
    _ steps: [EntityStep], _ subject: Subject, _ context: ManagedObjectContext
  ) async throws -> EntityHistory {
    let number = runs.add(1, ordering: .relaxed).newValue
    let prefix = "history \(number) "
    let controllers = (0..<EntityProgramGenerator.controllers).map { _ in
      ControllerBox(controller: subject.makeController())
    }
    subject.container().removeAllViolations()
    var ids: [Int: ManagedObjectID] = [:]
    var model = EntitySpecification()
    var history = EntityHistory()
    history.prefix = prefix
    let foreign = try await foreignID()
    for step in steps {
      switch step {
      case .readOnly(let on):
        context.isReadOnly = on
        model.readOnly = on
        history.events.append(.readOnly(on))
      case .together(let placed):
        // A call the program's own rules do not admit here (a shrunk program) is skipped.
        var admitted: [EntityCall] = []
        var made: [Bool] = []
        for call in placed.map(\.call) {
          let admit = model.admits(call, besides: admitted)
          if admit { admitted.append(call) }
          made.append(admit)
        }
        let run = EntityRunContext(subject: subject, prefix: prefix, ids: ids, foreign: foreign)
        let outcomes = await withTaskGroup(of: (Int, EntityOutcome).self) { group in
          for (index, call) in placed.enumerated() where made[index] {
            let box = call.call.controller.map { controllers[$0] }
            let newName = model.newName(for: call.call)
            group.addTask {
              (index, await place(call, box, run, newName: newName))
            }
          }
          var outcomes = [EntityOutcome](repeating: .skipped, count: placed.count)
          for await (index, outcome) in group { outcomes[index] = outcome }
          return outcomes
        }
        let pairs = Array(zip(placed, outcomes))
        history.events.append(.together(pairs))
        let reported = subject.container().removeAllViolations()
        let others = reported.filter { !isKnownGap($0) }
        if !others.isEmpty {
          history.breach = (
            history.events.count - 1, .violation,
            "\(others.count) violation(s) besides the known gap:\n" + describe(others, limit: 4)
          )
          return history
        }
        let rows = try await subject.storedRows().filter { $0.name.hasPrefix(prefix) }
          .map { EntityRow(id: $0.id, name: String($0.name.dropFirst(prefix.count))) }
        for row in rows {
          if let entity = EntityCall.entity(named: row.name), ids[entity] == nil {
            ids[entity] = row.id
          }
        }
        var after = model
        after.apply(step: admitted)
        var wrong: [String] = []
        var rule = EntityHistory.Rule.answer
        for (call, outcome) in pairs {
          if case .saved(let group) = call.call, case .list(let listed) = outcome {
            if let problem = model.judgeList(
              listed, prefix: group ?? "", after: after, ids: ids)
            {
              wrong.append("\(call.call.described): \(problem)")
              rule = .list
            }
          } else if let problem = model.judge(call.call, outcome, ids: ids) {
            wrong.append("\(call.call.described): \(problem)")
          }
        }
        model = after
        if !wrong.isEmpty {
          history.breach = (history.events.count - 1, rule, wrong.joined(separator: "; "))
          return history
        }
        let stored = rows.map(\.name).sorted()
        history.events.append(.store(stored))
        let due = model.stored.values.sorted()
        if stored != due {
          history.breach = (
            history.events.count - 1, .store,
            "the store holds \(stored), where the calls that returned leave \(due)"
          )
          return history
        }
      }
    }
    return history
  }

  /// Step 3's known gap: the actor's context used on CoreDataActor, outside its `perform`,
  /// because the actor's jobs run on the cooperative pool. Step 4 closes it.
  static func isKnownGap(_ violation: ConcurrencyViolation) -> Bool {
    violation.kind == .outsidePerform && violation.contextName == "CoreDataActor"
      && violation.location.hasPrefix("in a Swift task on the cooperative thread pool")
  }

  /// The ID of a row of another store.
  private static func foreignID() async throws -> ManagedObjectID {
    let context = PersistentContainer(name: "step3-histories-elsewhere").newBackgroundContext()
    return try await context.perform {
      let label = Label(context: context)
      try context.save()
      return label.objectID
    }
  }

  private static func place(
    _ call: PlacedCall, _ box: ControllerBox?, _ run: EntityRunContext, newName: String?
  ) async -> EntityOutcome {
    switch call.from {
    case .task: await perform(call.call, box, run, newName: newName)
    case .mainActor: await performOnMain(call.call, box, run, newName: newName)
    case .otherActor: await other.call(call.call, box, run, newName: newName)
    }
  }

  @MainActor
  private static func performOnMain(
    _ call: EntityCall, _ box: ControllerBox?, _ run: EntityRunContext, newName: String?
  ) async -> EntityOutcome {
    await perform(call, box, run, newName: newName)
  }

  static func perform(
    _ call: EntityCall, _ box: ControllerBox?, _ run: EntityRunContext, newName: String?,
    isolation: isolated (any Actor)? = #isolation
  ) async -> EntityOutcome {
    let named = { (entity: Int, group: String) in
      run.prefix + EntityCall.name(entity: entity, group: group)
    }
    func row(_ values: EntitySnapshotValues) -> EntityRow {
      EntityRow(id: values.id, name: String(values.name.dropFirst(run.prefix.count)))
    }
    do {
      switch call {
      case .configure(_, let entity, let group):
        try await box!.controller.configure(name: named(entity, group))
        return .done
      case .rename:
        try await box!.controller.rename(to: run.prefix + (newName ?? ""))
        return .done
      case .name:
        return .text(await box!.controller.name().map { String($0.dropFirst(run.prefix.count)) })
      case .snapshot:
        return .snapshot(await box!.controller.snapshotValues().map(row))
      case .delete:
        try await box!.controller.delete()
        return .done
      case .adopt(_, let entity):
        guard let id = entity == 0 ? run.foreign : run.ids[entity] else { return .skipped }
        try await box!.controller.adopt(id)
        return .done
      case .saved(let group):
        let lister = run.subject.makeController()
        return .list(
          try await lister.savedEntityValues(prefix: run.prefix + (group ?? "")).map(row))
      case .insertElsewhere(let entity, let group):
        _ = try await Step3Tests.insertElsewhere(named(entity, group), run.subject)
        return .done
      case .deleteElsewhere(let entity):
        guard let id = run.ids[entity] else { return .skipped }
        try await Step3Tests.deleteElsewhere(id, run.subject)
        return .done
      }
    } catch {
      return .threw(ThrownKind(error))
    }
  }
}

extension EntityCall {
  var described: String {
    let controller = self.controller.map { String(UnicodeScalar(UInt8(65 + $0))) } ?? ""
    return switch self {
    case .configure(_, let entity, let group):
      "\(controller).configure(name: \"\(Self.name(entity: entity, group: group))\") as E\(entity)"
    case .rename(_, let version): "\(controller).rename(to: its name + \".\(version)\")"
    case .name: "\(controller).name()"
    case .snapshot: "\(controller).snapshot()"
    case .delete: "\(controller).delete()"
    case .adopt(_, let entity): "\(controller).adopt(E\(entity)'s ID)"
    case .saved(let group): "savedEntities(prefix: \"\(group ?? "")\")"
    case .insertElsewhere(let entity, let group):
      "another context saves \"\(Self.name(entity: entity, group: group))\" as E\(entity)"
    case .deleteElsewhere(let entity): "another context deletes E\(entity)"
    }
  }
}

extension Caller {
  var described: String {
    switch self {
    case .task: ""
    case .mainActor: " (from the main actor)"
    case .otherActor: " (from another actor)"
    }
  }
}
