import WorkshopSupport

/// One call a random program makes to a model actor. Actors are named by number (`A` is 0);
/// notes by the number of the call that made them (`N3`), and `N0` is a note of another store,
/// whose ID no actor here can find. A call that names a note no call made (its add taken out by
/// the shrinker, or refused) is skipped when the program runs.
enum NoteCall: Sendable, Equatable {
  case add(actor: Int, note: Int)
  case read(actor: Int, note: Int)
  case rename(actor: Int, note: Int, version: Int)
  case delete(actor: Int, note: Int)
  case count(actor: Int)
  /// `copyNote(_:from:)` of the away actor's note `away` (the stretch task), making note `note`.
  case copy(actor: Int, note: Int, away: Int)

  var actor: Int {
    switch self {
    case .add(let actor, _), .read(let actor, _), .rename(let actor, _, _),
      .delete(let actor, _), .count(let actor), .copy(let actor, _, _):
      actor
    }
  }

  /// The note the call looks up by ID, if any.
  var lookedUp: Int? {
    switch self {
    case .read(_, let note), .rename(_, let note, _), .delete(_, let note): note
    default: nil
    }
  }

  /// The text an add writes, or a rename: unique, so that the store's texts name the calls.
  static func text(note: Int, version: Int = 0) -> String {
    version == 0 ? "n\(note)" : "n\(note).\(version)"
  }
}

/// One step of a program: calls made at once, from a task each, or an actor's context made
/// read-only (every save with changes throws) or writable again, between them.
enum NoteStep: Sendable, Equatable {
  case together([NoteCall])
  case readOnly(actor: Int, Bool)
}

/// Makes random programs from a seed. It keeps the model as it goes, so that most calls
/// matter: renames and deletes of notes that are there, lookups of notes just deleted, and,
/// while an actor's saves fail, calls to that actor, then a write once they succeed again. A
/// write that is due to fail is followed, in the next step, by the same actor's look at what it
/// wrote (a read of the note, or a count after an add): a failed write left in the context shows
/// there at once, not only if the random calls happen to come back to it.
struct NoteProgramGenerator {
  static let actors = 3
  private var random: SplitMix64
  private let copies: Bool

  init(seed: UInt64, copies: Bool) {
    random = SplitMix64(seed: seed)
    self.copies = copies
  }

  private mutating func pick(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

  mutating func program(rounds: Int) -> [NoteStep] {
    var model = NoteSpecification()
    var steps: [NoteStep] = []
    var next = 1
    var version = 1
    var followUps: [NoteCall] = []
    for _ in 0..<rounds {
      if let actor = model.readOnly.first {
        if pick(2) == 0 {
          steps.append(.readOnly(actor: actor, false))
          model.readOnly.remove(actor)
        }
      } else if pick(3) == 0 {
        let actor = pick(Self.actors)
        steps.append(.readOnly(actor: actor, true))
        model.readOnly.insert(actor)
      }
      var calls = followUps
      var touched = Set(followUps.compactMap(\.lookedUp))
      followUps = []
      for _ in 0..<(2 + pick(5)) {
        // While an actor's saves fail, half the calls go to it.
        let actor = model.readOnly.first.flatMap { pick(2) == 0 ? $0 : nil } ?? pick(Self.actors)
        let mine = model.owner.filter { $0.value == actor && !touched.contains($0.key) }.keys
          .sorted()
        let live = mine.filter { model.texts[$0] != nil }
        let kind = pick(12)
        switch kind {
        case 0..<3:
          calls.append(.add(actor: actor, note: next))
          next += 1
        case 3 where copies:
          calls.append(.copy(actor: actor, note: next, away: 1 + pick(2)))
          next += 1
        case 4..<6 where !mine.isEmpty:
          let note = mine[pick(mine.count)]
          calls.append(.read(actor: actor, note: note))
          touched.insert(note)
        case 6..<8 where !live.isEmpty:
          let note = live[pick(live.count)]
          calls.append(.rename(actor: actor, note: note, version: version))
          version += 1
          touched.insert(note)
        case 8 where !live.isEmpty:
          let note = live[pick(live.count)]
          calls.append(.delete(actor: actor, note: note))
          touched.insert(note)
        case 9:
          calls.append(.count(actor: actor))
        case 10:
          calls.append(.read(actor: actor, note: 0))
        default:
          continue
        }
      }
      for call in calls where model.readOnly.contains(call.actor) {
        switch call {
        case .rename(let actor, let note, _), .delete(let actor, let note):
          followUps.append(.read(actor: actor, note: note))
        case .add(let actor, _), .copy(let actor, _, _):
          followUps.append(.count(actor: actor))
        default: break
        }
      }
      // The generator's model assumes every call keeps the rule, as the solution does.
      for call in calls { model.applyExpected(call) }
      steps.append(.together(calls))
    }
    return steps
  }
}
