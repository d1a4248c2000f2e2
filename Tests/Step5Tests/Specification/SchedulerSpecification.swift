/// Step 5's rule, written once, as a model: a first-come-first-served readers-writer queue.
///
/// It knows nothing of threads or time. It is told who asks, who finishes and who leaves (a
/// cancelled caller, a caller whose time ran out), and it says who runs and who waits. The
/// history checks replay what really happened against it: every block that started must be one
/// the model runs at that moment, and every caller the model runs must start.
struct SchedulerSpecification: Sendable {
  enum Access: String, Sendable {
    case read, write
  }

  /// Why a caller is neither running nor waiting any more.
  enum Gone: String, Sendable {
    case finished = "had already finished"
    case cancelled = "had been cancelled while it waited, and so had left the queue"
    case cancelledBeforeAsking = "had been cancelled before it asked, and so never joined the queue"
    case timedOut = "had waited out its limit, and so had left the queue"
  }

  private(set) var running: [Int: Access] = [:]
  private(set) var waiting: [(call: Int, access: Access)] = []
  private(set) var gone: [Int: Gone] = [:]
  /// Callers known to time out in the end: the model never lets them in, since a caller that
  /// got its turn runs. Each leaves when its limit is up, or when its turn comes, if sooner (its
  /// timer beat the grant).
  var doomed: Set<Int> = []

  func isRunning(_ call: Int) -> Bool { running[call] != nil }

  func isWaiting(_ call: Int) -> Bool { waiting.contains { $0.call == call } }

  /// Whether a caller that asked now would start at once.
  func wouldStart(_ access: Access) -> Bool { waiting.isEmpty && canStart(access) }

  /// A caller asks: it starts at once when nobody waits and nothing running is in its way; else
  /// it waits at the back of the queue. Returns who starts.
  @discardableResult
  mutating func arrive(_ call: Int, _ access: Access) -> [Int] {
    waiting.append((call, access))
    return admit()
  }

  /// A running block ends, on any path: its slot is free. Returns who starts.
  @discardableResult
  mutating func finish(_ call: Int) -> [Int] {
    guard running.removeValue(forKey: call) != nil else { return [] }
    gone[call] = .finished
    return admit()
  }

  /// A caller already cancelled when it asks: it never joins the queue.
  mutating func refuse(_ call: Int) {
    gone[call] = .cancelledBeforeAsking
  }

  /// A waiting caller leaves the queue without running. Returns who starts.
  @discardableResult
  mutating func leave(_ call: Int, because reason: Gone) -> [Int] {
    guard let index = waiting.firstIndex(where: { $0.call == call }) else { return [] }
    waiting.remove(at: index)
    gone[call] = reason
    return admit()
  }

  /// Why `call` may not be running at this moment, and which part of the rule says so; nil when
  /// it may.
  func whyNotRunning(_ call: Int) -> (rule: SchedulerRule, because: String)? {
    if isRunning(call) { return nil }
    if let reason = gone[call] {
      return (reason == .finished ? .outcome : .leaving, "C\(call) \(reason.rawValue)")
    }
    guard let index = waiting.firstIndex(where: { $0.call == call }) else {
      return (.outcome, "C\(call) had not asked yet")
    }
    if let writer = running.first(where: { $0.value == .write })?.key {
      return (.alone, "the write C\(writer) was running, and a write runs alone")
    }
    if waiting[index].access == .write, !running.isEmpty {
      let readers = running.keys.sorted().map { "C\($0)" }.joined(separator: ", ")
      return (.alone, "the read(s) \(readers) were running, and a write runs alone")
    }
    let ahead = waiting[..<index].map { "C\($0.call) (a \($0.access.rawValue))" }
    return (
      .firstComeFirstServed,
      "\(ahead.joined(separator: ", ")) asked before it and still waited"
    )
  }

  private func canStart(_ access: Access) -> Bool {
    switch access {
    case .read: !running.values.contains(.write)
    case .write: running.isEmpty
    }
  }

  /// Lets waiting callers in from the front, in order: reads together, a write alone. It stops
  /// at the first that cannot start, so nobody overtakes a waiting write.
  private mutating func admit() -> [Int] {
    var admitted: [Int] = []
    while let first = waiting.first, canStart(first.access) {
      waiting.removeFirst()
      if doomed.contains(first.call) {
        gone[first.call] = .timedOut
        continue
      }
      running[first.call] = first.access
      admitted.append(first.call)
    }
    return admitted
  }
}
