// Who waits for whom in `performAndWait`: enough to see queues that wait for each other for good.

/// The threads blocked in `performAndWait` on a context's queue while they run blocks of other
/// contexts, each an edge from every context it holds to the one it waits for.
///
/// A context's queue is serial: while a thread runs one of its blocks, no other block of it
/// starts. So an edge A → B says that A's queue runs nothing until B's runs the waiting block,
/// and a cycle A → B → A says that neither ever will: a deadlock, certain from this state alone.
/// Every wait is kept, recorded before the thread waits and removed as soon as its block has run:
/// those of a thread that holds no context make no edge, and are counted only (a check sees a
/// caller's thread blocked in `performAndWait`, `ManagedObjectContext.threadsInPerformAndWait`).
enum WaitsFor {
  private struct Wait {
    let holds: [PerformScope.Entry]
    let waitsFor: ContextCore
  }

  private static let waits = Locked<(next: UInt64, all: [UInt64: Wait])>((0, [:]))

  /// Runs `body`, in which the current thread waits for `core`'s queue, recorded as a wait.
  static func waiting<Result, Failure: Error>(
    for core: ContextCore, _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let holds = PerformScope.heldByThisThread
    let token = waits.withLock { waits in
      defer { waits.next += 1 }
      waits.all[waits.next] = Wait(holds: holds, waitsFor: core)
      return waits.next
    }
    defer { _ = waits.withLock { $0.all.removeValue(forKey: token) } }
    return try body()
  }

  /// How many threads are in `performAndWait` for `id`'s queue: waiting for it, or running
  /// their block there.
  static func count(for id: ContextID) -> Int {
    waits.withLock { $0.all.values.count { $0.waitsFor.id == id } }
  }

  /// How many threads are in `performAndWait` for a queue of any context of `store`.
  static func count(in store: InMemoryStore) -> Int {
    waits.withLock { $0.all.values.count { $0.waitsFor.store === store } }
  }

  /// The contexts of a cycle of waits through `id`, by name, starting with `id`'s; nil when
  /// there is none.
  static func cycle(through id: ContextID) -> [String]? {
    let all = waits.withLock { Array($0.all.values) }
    var next: [ContextID: [ContextCore]] = [:]
    var names: [ContextID: String] = [:]
    for wait in all {
      names[wait.waitsFor.id] = wait.waitsFor.displayName
      for held in wait.holds where held.id != wait.waitsFor.id {
        next[held.id, default: []].append(wait.waitsFor)
        names[held.id] = held.displayName
      }
    }
    // A depth-first walk from `id` along the edges, back to `id`.
    var path = [id]
    var seen: Set<ContextID> = [id]
    func walk(_ from: ContextID) -> Bool {
      for to in next[from] ?? [] {
        if to.id == id { return true }
        guard seen.insert(to.id).inserted else { continue }
        path.append(to.id)
        if walk(to.id) { return true }
        path.removeLast()
      }
      return false
    }
    guard walk(id) else { return nil }
    return path.map { names[$0] ?? "context \($0)" }
  }
}
