import ManagedObjectCore

/// What a model actor's calls answer, written down after the call returned.
enum NoteOutcome: Sendable, Equatable, CustomStringConvertible {
  case id(ManagedObjectID?)
  case text(String?)
  case renamed(Bool)
  case deleted
  case count(Int)
  /// The call threw: a read-only context's refusal, or (`other`) anything else.
  case refused
  case threw(String)
  /// The call named a note no call made: not made.
  case skipped

  var description: String {
    switch self {
    case .id(let id): id.map { $0.isTemporaryID ? "a temporary ID" : "an ID" } ?? "nil"
    case .text(let text): text.map { "\"\($0)\"" } ?? "nil"
    case .renamed(let found): "\(found)"
    case .deleted: "done"
    case .count(let count): "\(count)"
    case .refused: "threw: the context is read-only"
    case .threw(let error): "threw \(error)"
    case .skipped: "skipped"
    }
  }
}

/// The rule of Step 6's model actors, as a model of the store. A call's effect is all or
/// nothing: one that returns has saved its change, one that throws has left no trace, in the
/// store or in the actor's context, for a later save to pick up. A note is found by the actor
/// that made it until it is deleted; never in another store. An actor whose context is
/// read-only refuses every write that has something to save.
///
/// Calls made at once touch different notes, so each is judged against the store as the
/// calls before them left it; a count, which sees the others' saves or not, is judged between
/// the two.
struct NoteSpecification {
  /// The text of each note in the store, by note number.
  var texts: [Int: String] = [:]
  /// Which actor made each note: the one the program asks about it.
  var owner: [Int: Int] = [:]
  var readOnly: Set<Int> = []
  /// The text of the away actor's notes (`1` is there, `2` deleted), for copies.
  static let away: [Int: String] = [1: "away1"]

  /// What `call` must answer, made on the store as it is now: nil for a count, judged apart.
  /// `.id(nil)` from an add or a copy of a note that is there means "the saved note's ID".
  func expected(_ call: NoteCall) -> NoteOutcome? {
    let refusing = readOnly.contains(call.actor)
    switch call {
    case .add: return refusing ? .refused : .id(nil)
    case .copy(_, _, let away):
      return Self.away[away] == nil ? .id(nil) : refusing ? .refused : .id(nil)
    case .read(_, let note): return .text(texts[note])
    case .rename(_, let note, _):
      return texts[note] == nil ? .renamed(false) : refusing ? .refused : .renamed(true)
    case .delete(_, let note): return texts[note] == nil || !refusing ? .deleted : .refused
    case .count: return nil
    }
  }

  /// What is wrong with `outcome` as the answer to `call`, or nil.
  func judge(_ call: NoteCall, _ outcome: NoteOutcome, countBetween range: ClosedRange<Int>)
    -> String?
  {
    if outcome == .skipped { return nil }
    guard let expected = expected(call) else {
      if case .count(let count) = outcome, range.contains(count) { return nil }
      let held =
        range.count == 1
        ? "\(range.lowerBound)" : "between \(range.lowerBound) and \(range.upperBound)"
      return "answered \(outcome), where the store held \(held) note(s)"
    }
    var makesANote: Bool {
      switch call {
      case .add: true
      case .copy(_, _, let away): Self.away[away] != nil
      default: false
      }
    }
    guard makesANote, expected != .refused else {
      return outcome == expected ? nil : "answered \(outcome), where \(expected) is due"
    }
    switch outcome {
    case .id(let id?) where !id.isTemporaryID: return nil
    case .id(let id?) where id.isTemporaryID:
      return "answered a temporary ID, where the saved note's is due"
    default: return "answered \(outcome), where the saved note's ID is due"
    }
  }

  /// Takes in what `call` did, as the rule says it must have: the generator's guess, and what
  /// the judge knows once the call has been judged right.
  mutating func applyExpected(_ call: NoteCall) {
    guard let expected = expected(call) else { return }
    apply(call, expected == .refused ? .refused : .id(nil))
  }

  /// Takes in the effect of `call`, which answered `outcome`.
  mutating func apply(_ call: NoteCall, _ outcome: NoteOutcome) {
    guard outcome != .refused, outcome != .skipped else { return }
    switch call {
    case .add(let actor, let note):
      texts[note] = NoteCall.text(note: note)
      owner[note] = actor
    case .copy(let actor, let note, let away):
      guard let text = Self.away[away] else { return }
      texts[note] = text
      owner[note] = actor
    case .rename(_, let note, let version) where texts[note] != nil:
      texts[note] = NoteCall.text(note: note, version: version)
    case .delete(_, let note): texts[note] = nil
    default: break
    }
  }

  /// What the store must hold: the texts of its notes, in order.
  var stored: [String] { texts.values.sorted() }
}
