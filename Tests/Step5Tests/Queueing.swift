import WorkshopSupport

// How the checks see a caller wait: in `waitingCount`, the scheduler's own count of its queue.
// A look at the queue says what it saw in the attendee's terms, and a check that saw callers the
// count left out teaches the count first, whatever else it is about.

extension Scheduler {
  /// Waits until the scheduler's own state shows `count` callers queued, or one of `started`
  /// opened (a block ran that should have waited): whichever comes first ends the wait, so a
  /// right answer and the untouched starter are both seen at once, and no fixed time is waited
  /// out.
  func queueing(_ count: Int, noneOf started: [Gate]) async -> Queueing {
    _ = await eventually(within: .seconds(5)) {
      waitingCount == count || started.contains { $0.isOpen } || isStalled
    }
    return Queueing(
      expected: count, waitingCount: waitingCount, startedAtOnce: started.contains { $0.isOpen })
  }

  /// True when the queue holds `count` and nobody of `started` started.
  func queued(_ count: Int, noneOf started: [Gate]) async -> Bool {
    await queueing(count, noneOf: started).isQueued
  }
}

/// What a look at the queue saw, said as the attendee's code would explain it: callers that
/// waited, one that started at once, or callers that did not start while `waitingCount` did not
/// count them (a count left at 0 hides a queue that works).
struct Queueing: CustomStringConvertible {
  let expected: Int
  let waitingCount: Int
  let startedAtOnce: Bool

  var isQueued: Bool { waitingCount == expected && !startedAtOnce }

  /// Nobody started, yet the count is not what the queue must hold.
  var countHidesTheQueue: Bool { !startedAtOnce && !isQueued }

  var description: String {
    if startedAtOnce { return "started at once instead of waiting" }
    if isQueued { return "waited" }
    return "did not start, while `waitingCount` said \(waitingCount), not \(expected)"
  }
}

extension Step5Tests {
  /// The lesson of a check about a caller that waits (cancelled while it waits, leaving the
  /// queue, holding no slot) when none waited: the scheduler started every caller at once, as
  /// the untouched starter does, so what the check is about never came up. The starter brings
  /// the cancellation handling; the queue it needs is the exercise.
  static let nobodyWaited = step.lesson(
    rule: "A caller that may not start waits in the queue: a write while any block runs, a read "
      + "while a write runs or waits ahead of it. This check needs callers that wait, and none "
      + "did.",
    hint: "Decide under the lock whether a caller starts at once or joins the back of the queue, "
      + "and let `waitingCount` report the queue: the checks see a caller wait only there.",
    read: "the-rule")

  /// The lesson of a check whose callers neither started nor showed in `waitingCount`: the
  /// queue may well work, but the checks cannot see it.
  static let uncountedQueue = step.lesson(
    rule: "A caller that may not start waits in the queue, and `waitingCount` says how many wait: "
      + "the checks see a caller wait only there.",
    hint: "Let `waitingCount` report the length of the queue, read under the lock.",
    read: "the-rule")

  /// The lesson of a check whose first caller, which the check holds inside its block, never
  /// got there: nothing the check is about could happen after it.
  static let neverStarted = step.lesson(
    rule: "A read may start while no write runs and none waits ahead of it; a write while nothing "
      + "runs and nobody waits.",
    hint: "Look at `canStart(_:)` and at the start-or-wait decision in `startOrWait`: a caller "
      + "that may start must not join the queue.",
    read: "the-rule")

  /// `lesson`, unless a look at the queue saw callers it did not count.
  static func lesson(seeing queueings: Queueing..., else lesson: Lesson) -> Lesson {
    queueings.contains(where: \.countHidesTheQueue) ? uncountedQueue : lesson
  }
}
