import ManagedObjectCore
import Step6Solution
import WorkshopSupport

/// What happened when a program ran, in order, with where it first broke the rule.
struct NoteHistory: Sendable {
  enum Event: Sendable {
    case readOnly(actor: Int, Bool)
    case together([(NoteCall, NoteOutcome)])
    case store([String])
  }

  /// Which part of the rule broke: a failure shrinks to a program that breaks the same.
  enum Rule: Sendable, Equatable {
    case answer, store, violation
  }

  var events: [Event] = []
  /// Where it broke (an index into `events`), which part, and what was seen.
  var breach: (at: Int, rule: Rule, observed: String)?
}

/// Runs a program on three model actors of one store (and, for copies, a fourth on a store of
/// its own), each step's calls from a task each, and judges every answer, the store after each
/// step, and the violations, against ``NoteSpecification``. It stops at the first breach.
enum NoteProgramRun {
  static func run(_ steps: [NoteStep], _ subject: Subject, copies: Bool) async throws
    -> NoteHistory
  {
    try await withTimeout(.seconds(20), "a random program of calls to model actors") {
      try await runUnbounded(steps, subject, copies: copies)
    }
  }

  private static func runUnbounded(_ steps: [NoteStep], _ subject: Subject, copies: Bool)
    async throws -> NoteHistory
  {
    let container = PersistentContainer(name: "step6-histories")
    let actors = (0..<NoteProgramGenerator.actors).map { _ in subject.make(container) }
    let elsewhere = PersistentContainer(name: "step6-histories-elsewhere")
    // N0: a note of another store, which no actor here can find.
    let context = elsewhere.newBackgroundContext()
    let foreign = try context.performAndWait {
      let label = Label(context: context)
      try context.save()
      return label.objectID
    }
    var ids: [Int: ManagedObjectID] = [0: foreign]
    var awayIDs: [Int: ManagedObjectID] = [:]
    let away = subject.make(elsewhere)
    if copies {
      awayIDs[1] = try await away.addNote("away1")
      awayIDs[2] = try await away.addNote("away2")
      try await away.delete(awayIDs[2]!)
    }
    var model = NoteSpecification()
    var history = NoteHistory()
    for step in steps {
      switch step {
      case .readOnly(let actor, let on):
        actors[actor].context.isReadOnly = on
        if on { model.readOnly.insert(actor) } else { model.readOnly.remove(actor) }
        history.events.append(.readOnly(actor: actor, on))
      case .together(let calls):
        let (known, awayKnown) = (ids, awayIDs)
        let outcomes = await withTaskGroup(of: (Int, NoteOutcome).self) { group in
          for (index, call) in calls.enumerated() {
            group.addTask {
              (index, await perform(call, actors[call.actor], known, away, awayKnown))
            }
          }
          var outcomes = [NoteOutcome](repeating: .skipped, count: calls.count)
          for await (index, outcome) in group { outcomes[index] = outcome }
          return outcomes
        }
        let pairs = Array(zip(calls, outcomes))
        history.events.append(.together(pairs))
        // A violation first: code off its context's queue explains any answer.
        let violations = container.violations + elsewhere.violations
        if !violations.isEmpty {
          history.breach = (
            history.events.count - 1, .violation,
            "\(violations.count) violation(s):\n" + describe(violations, limit: 4)
          )
          return history
        }
        let range = model.countRange(during: pairs)
        var wrong: [String] = []
        for (call, outcome) in pairs {
          if let problem = model.judge(call, outcome, countBetween: range) {
            wrong.append("\(call.described): \(problem)")
          }
        }
        for (call, outcome) in pairs {
          model.apply(call, outcome)
          if case .id(let id?) = outcome, let note = call.made { ids[note] = id }
        }
        if !wrong.isEmpty {
          history.breach = (history.events.count - 1, .answer, wrong.joined(separator: "; "))
          return history
        }
        let stored = try await subject.storedTexts(container)
        history.events.append(.store(stored))
        if stored != model.stored {
          history.breach = (
            history.events.count - 1, .store,
            "the store holds \(stored), where the calls that returned leave \(model.stored)"
          )
          return history
        }
      }
    }
    return history
  }

  private static func perform(
    _ call: NoteCall, _ actor: any Handler, _ ids: [Int: ManagedObjectID], _ away: any Handler,
    _ awayIDs: [Int: ManagedObjectID]
  ) async -> NoteOutcome {
    if let note = call.lookedUp, ids[note] == nil { return .skipped }
    do {
      switch call {
      case .add(_, let note): return .id(try await actor.addNote(NoteCall.text(note: note)))
      case .read(_, let note): return .text(await actor.text(of: ids[note]!))
      case .rename(_, let note, let version):
        return .renamed(
          try await actor.rename(ids[note]!, to: NoteCall.text(note: note, version: version)))
      case .delete(_, let note):
        try await actor.delete(ids[note]!)
        return .deleted
      case .count: return .count(try await actor.count())
      case .copy(_, _, let note):
        guard let id = awayIDs[note] else { return .skipped }
        return .id(try await actor.copyNote(id, fromHandler: away))
      }
    } catch let error as PersistenceError {
      if case .readOnlyContext = error { return .refused }
      return .threw("\(error)")
    } catch {
      return .threw("\(error)")
    }
  }
}

extension NoteSpecification {
  /// A count made at once with `calls` sees each of their saves or not: it lies between the
  /// store without the deletes that are due to succeed and with the notes that are due.
  func countRange(during calls: [(NoteCall, NoteOutcome)]) -> ClosedRange<Int> {
    var (fewer, more) = (0, 0)
    for (call, _) in calls {
      switch (call, expected(call)) {
      case (.delete(_, let note), .deleted?) where texts[note] != nil: fewer += 1
      case (.add, .id?), (.copy, .id?): more += 1
      default: break
      }
    }
    return (texts.count - fewer)...(texts.count + more)
  }
}

extension NoteCall {
  /// The note the call makes, if it makes one.
  var made: Int? {
    switch self {
    case .add(_, let note), .copy(_, let note, _): note
    default: nil
    }
  }

  var described: String {
    let name = String(UnicodeScalar(UInt8(65 + actor)))
    return switch self {
    case .add(_, let note): "\(name).addNote(\"\(Self.text(note: note))\") as N\(note)"
    case .read(_, let note): "\(name).text(of: N\(note))"
    case .rename(_, let note, let version):
      "\(name).rename(N\(note), to: \"\(Self.text(note: note, version: version))\")"
    case .delete(_, let note): "\(name).delete(N\(note))"
    case .count: "\(name).count()"
    case .copy(_, let note, let away):
      "\(name).copyNote(away\(away), from: D) as N\(note)"
    }
  }
}
