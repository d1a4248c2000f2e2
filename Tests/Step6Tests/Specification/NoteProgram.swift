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

  /// The kinds of call, weighted: `kind` is drawn from `0..<12` for a random call.
  private enum Kind {
    static let add = 0..<3
    static let copy = 3
    static let read = 4..<6
    static let rename = 6..<8
    static let delete = 8
    static let count = 9
    static let foreignRead = 10
  }

  /// What a program being made knows: the model of the calls so far, the next note and version.
  private struct Draft {
    var model = NoteSpecification()
    var next = 1
    var version = 1
  }

  /// A call of `kind` to `actor`, or nil when it has nothing to act on (or is a copy and copies
  /// are off). Notes in `touched` are left alone: one call per note per step.
  private mutating func call(
    _ kind: Int, to actor: Int, _ draft: inout Draft, touched: inout Set<Int>
  ) -> NoteCall? {
    let mine = draft.model.owner.filter { $0.value == actor && !touched.contains($0.key) }.keys
      .sorted()
    let live = mine.filter { draft.model.texts[$0] != nil }
    let call: NoteCall
    switch kind {
    case Kind.add:
      call = .add(actor: actor, note: draft.next)
      draft.next += 1
    case Kind.copy where copies:
      call = .copy(actor: actor, note: draft.next, away: 1 + pick(2))
      draft.next += 1
    case Kind.read where !mine.isEmpty:
      call = .read(actor: actor, note: mine[pick(mine.count)])
    case Kind.rename where !live.isEmpty:
      call = .rename(actor: actor, note: live[pick(live.count)], version: draft.version)
      draft.version += 1
    case Kind.delete where !live.isEmpty:
      call = .delete(actor: actor, note: live[pick(live.count)])
    case Kind.count:
      call = .count(actor: actor)
    case Kind.foreignRead:
      call = .read(actor: actor, note: 0)
    default:
      return nil
    }
    if let note = call.lookedUp { touched.insert(note) }
    return call
  }

  mutating func program(rounds: Int) -> [NoteStep] {
    var draft = Draft()
    var steps: [NoteStep] = []
    var followUps: [NoteCall] = []
    for _ in 0..<rounds {
      if !followUps.isEmpty {
        // A step of its own: another failing write of the actor, rolled back, would hide what
        // the first one left.
        for call in followUps { draft.model.applyExpected(call) }
        steps.append(.together(followUps))
        followUps = []
      }
      if let actor = draft.model.readOnly.first {
        if pick(2) == 0 {
          steps.append(.readOnly(actor: actor, false))
          draft.model.readOnly.remove(actor)
        }
      } else if pick(3) == 0 {
        // An actor with notes, when there is one: its renames and deletes can then fail too.
        let owners = Set(draft.model.owner.filter { draft.model.texts[$0.key] != nil }.values)
          .sorted()
        let actor = owners.isEmpty ? pick(Self.actors) : owners[pick(owners.count)]
        steps.append(.readOnly(actor: actor, true))
        draft.model.readOnly.insert(actor)
      }
      var calls: [NoteCall] = []
      var touched: Set<Int> = []
      let refusing = draft.model.readOnly.first
      if let actor = refusing, pick(2) == 0 {
        // One step in two, while its saves fail, the actor gets one write and nothing else: a
        // second failing write, rolled back, would hide what the first one left.
        let kinds =
          [Kind.add.lowerBound, Kind.rename.lowerBound, Kind.delete] + (copies ? [Kind.copy] : [])
        if let call = call(kinds[pick(kinds.count)], to: actor, &draft, touched: &touched) {
          calls.append(call)
        }
        let others = (0..<Self.actors).filter { $0 != actor }
        for _ in 0..<pick(4) {
          let other = others[pick(others.count)]
          if let call = call(pick(12), to: other, &draft, touched: &touched) { calls.append(call) }
        }
      } else {
        for _ in 0..<(2 + pick(5)) {
          // While an actor's saves fail, half the calls go to it.
          let actor = refusing.flatMap { pick(2) == 0 ? $0 : nil } ?? pick(Self.actors)
          if let call = call(pick(12), to: actor, &draft, touched: &touched) { calls.append(call) }
        }
      }
      for call in calls where draft.model.readOnly.contains(call.actor) {
        switch call {
        case .rename(let actor, let note, _), .delete(let actor, let note):
          followUps.append(.read(actor: actor, note: note))
        case .add(let actor, _), .copy(let actor, _, _):
          followUps.append(.count(actor: actor))
        default: break
        }
      }
      // The generator's model assumes every call keeps the rule, as the solution does.
      for call in calls { draft.model.applyExpected(call) }
      steps.append(.together(calls))
    }
    return steps
  }
}
