/// What a stalled state looks like, read from where each live caller is and what the
/// scheduler's `waitingCount` says: the one reading that both ``StalledRun`` (a program's
/// history) and ``WatchedScheduler`` (a scenario's calls) take.
///
/// Every caller that has asked is, whenever nothing is on its way, in exactly one place:
/// counted in the queue, running its block, or returned. A right answer moves a caller from
/// one to the next under its lock, or on a thread it has already handed it to; so a state that
/// stays the same (``StallSighting``) with callers outside those places, or with the slot free
/// and callers counted, is one nothing will change.
struct StallReading {
  /// One caller that has asked and not returned.
  struct Caller {
    let name: String?
    let access: Access
    let cancelled: Bool
    let started: Bool
    /// Its block ended and it has not returned: its release may be on its way.
    let ended: Bool
  }

  /// What was seen, in words; nil while something can still happen.
  static func observed(_ live: [Caller], waitingCount waiting: Int) -> String? {
    let unstarted = live.filter { !$0.started }
    let running = live.filter { $0.started && !$0.ended }
    let listed = { (callers: [Caller]) -> String in
      let names = callers.compactMap(\.name)
      return names.count == callers.count && !names.isEmpty
        ? " (\(names.joined(separator: ", ")))" : ""
    }
    // More callers counted than could be in the queue: a right answer queues only callers that
    // asked and have not started (each leaves the queue before it is resumed). Those the count
    // holds beyond that were resumed and left in it, until a release resumes them again.
    if waiting > unstarted.count {
      return "waitingCount said \(waiting), yet only \(unstarted.count) caller(s) had neither "
        + "started nor returned\(listed(unstarted)): the queue still counted callers that had "
        + "been resumed"
    }
    // A block that ended, whose caller has not returned: its release may be on its way.
    guard !live.contains(where: \.ended) else { return nil }
    // Callers in no place: not counted, not running, not returned.
    if waiting < unstarted.count {
      return "\(unstarted.count) caller(s) had asked\(listed(unstarted)) and neither started "
        + "their block nor returned, yet waitingCount said \(waiting): \(unstarted.count - waiting) "
        + "of them waited where the queue does not count them (a count that leaves waiters out, "
        + "a caller taken out of the queue and never resumed, or one let in whose block cannot "
        + "start)"
    }
    guard waiting > 0 else { return nil }
    let queued =
      "\(waiting) caller(s)\(listed(unstarted)) still waited (waitingCount said \(waiting))"
    if running.isEmpty {
      return "no block was running and every caller whose block had run had returned, yet "
        + "\(queued): the slot was free, and nobody was let in"
    }
    if !running.contains(where: { $0.access == .write }),
      !unstarted.contains(where: { $0.access == .write })
    {
      return "only reads were running\(listed(running)) and only reads waited, yet \(queued): a "
        + "read may start beside reads, and none was let in"
    }
    let stuck = unstarted.filter(\.cancelled)
    if !stuck.isEmpty {
      return "\(stuck.count) caller(s)\(listed(stuck)), cancelled before or while they waited, "
        + "were still in the queue: \(queued), none of them on its way out"
    }
    return nil
  }
}
