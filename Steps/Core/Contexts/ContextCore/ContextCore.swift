import Dispatch
import Foundation
import Synchronization

/// The thread-safe engine behind a ``ManagedObjectContext`` and its objects.
///
/// The public context is a thin, non-Sendable facade over this; objects hold the core too, so the
/// checker and the lock are reachable from every property access. The lock keeps the core
/// consistent even when code breaks confinement; the checker reports that code.
final class ContextCore: Sendable {
  let id: ContextID
  let concurrencyType: ManagedObjectContext.ConcurrencyType
  let queue: DispatchQueue
  /// The store at the root of the hierarchy: it issues IDs and permanent rows.
  let store: InMemoryStore
  /// Where saves go and fetches read from: another context, or the store when nil.
  let parent: ContextCore?
  let reporter: ViolationReporter
  let hub: SaveHub
  let state: ReentrantLocked<ContextState>
  /// The name has a lock of its own that takes no other lock, so a violation message can name a
  /// context while another context's lock is held.
  let nameStorage: Locked<String?>
  /// Who hears about this context's merges and refreshes.
  let objectsDidChange = ObjectsDidChangeObservers()

  private static let nextID = Atomic<UInt64>(0)

  init(
    concurrencyType: ManagedObjectContext.ConcurrencyType, store: InMemoryStore,
    parent: ContextCore? = nil, reporter: ViolationReporter, hub: SaveHub, name: String?
  ) {
    self.parent = parent
    let raw = Self.nextID.add(1, ordering: .relaxed).newValue
    id = ContextID(rawValue: raw)
    self.concurrencyType = concurrencyType
    self.store = store
    self.reporter = reporter
    self.hub = hub
    queue =
      switch concurrencyType {
      case .mainQueue: .main
      case .privateQueue: DispatchQueue(label: "ManagedObjectCore.context-\(raw)")
      }
    state = ReentrantLocked(ContextState())
    nameStorage = Locked(name)
    if concurrencyType == .privateQueue { PerformScope.mark(queue, for: id) }
  }

  var owner: ManagedObjectContext? { state.withLock { $0.owner } }

  var name: String? {
    get { nameStorage.withLock { $0 } }
    set { nameStorage.withLock { $0 = newValue } }
  }

  var displayName: String {
    if let name { return name }
    let kind = concurrencyType == .mainQueue ? "main-queue" : "private-queue"
    return "\(kind) context \(id)"
  }

  // MARK: - Confinement

  /// True when the current code may use this context: inside its perform scope, or on the main
  /// queue for a main-queue context.
  var isInScope: Bool {
    PerformScope.contains(id) || (concurrencyType == .mainQueue && PerformScope.holdsMainQueue)
  }

  private var scopeEntry: PerformScope.Entry {
    PerformScope.Entry(id: id, core: self)
  }

  /// The caller's frame plus this context: what a `performAndWait` block may touch. A caller that
  /// holds the main queue is blocked until the block returns, so the block holds it too.
  func nestedFrame() -> PerformScope.Frame {
    var frame = PerformScope.current
    frame.holdsMainQueue = PerformScope.holdsMainQueue
    if !frame.entries.contains(where: { $0.id == id }) { frame.entries.append(scopeEntry) }
    return frame
  }

  /// The frame of a block that runs on its own, from the context's queue.
  func ownFrame() -> PerformScope.Frame {
    PerformScope.Frame(entries: [scopeEntry])
  }

  /// Said of a main-queue context used in another serial queue's block on Linux, where the core
  /// cannot see whether main-queue code waits for the block in `sync` (Core Data on Darwin can).
  private static let linuxSyncNote =
    " (if main-queue code waits for this block in sync, Core Data allows it on Apple platforms;"
    + " on Linux the core cannot see the waiting caller: use the context outside the sync block)"

  /// Checks one operation and reports at most one violation for it. Returns false when the
  /// operation must not touch `object` or `others`: one belongs to another context or was
  /// invalidated. The names are only built when there is something to report.
  @discardableResult
  private func verify(
    _ operation: ConcurrencyViolation.Operation, entity: () -> String?, property: () -> String?,
    object: ManagedObject?, others: [ManagedObject] = [], state: ContextState
  ) -> Bool {
    var foreign: ManagedObject?
    var detached: ManagedObject?
    func classify(_ candidate: ManagedObject) {
      if candidate.core !== self {
        foreign = foreign ?? candidate
      } else if candidate.isDetached {
        detached = detached ?? candidate
      }
    }
    if let object { classify(object) }
    for other in others { classify(other) }
    let proceed = foreign == nil && detached == nil
    guard reporter.isChecking else { return proceed }
    let inScope = isInScope || (object.map(PerformScope.isFilling) ?? false)
    if inScope && proceed { return true }

    let kind: ConcurrencyViolation.Kind
    var location = PerformScope.describeCurrentLocation()
    var contextName = displayName
    if !inScope {
      kind = .outsidePerform
      if concurrencyType == .mainQueue && PerformScope.mayBeWaitedForByMainQueue {
        location += Self.linuxSyncNote
      }
    } else if let foreign {
      kind = .foreignContext
      location = "used with context '\(contextName)', \(location)"
      contextName = foreign.core.displayName
    } else if let detached, case .detached(let reason) = detached.lifecycle {
      kind = .invalidatedObject
      location = "after \(reason.rawValue), \(location)"
    } else {
      return proceed
    }
    reporter.report(
      ConcurrencyViolation(
        kind: kind, operation: operation, entity: entity() ?? object?.entityName,
        property: property(), contextName: contextName, location: location))
    return proceed
  }

  /// Runs one checked operation under the lock; unless `firingFault` is false, an `object` that
  /// is a fault loads its values first.
  func access<Result, Failure: Error>(
    _ operation: ConcurrencyViolation.Operation, object: ManagedObject? = nil,
    firingFault: Bool = true,
    entity: @autoclosure () -> String? = nil, property: @autoclosure () -> String? = nil,
    _ body: (ContextState) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try state.withLock { (state: ContextState) throws(Failure) -> Result in
      verify(operation, entity: entity, property: property, object: object, state: state)
      if firingFault, let object { fireFault(object, in: state) }
      return try body(state)
    }
  }

  /// Runs a checked operation on objects; `body` gets false when it must leave them alone.
  func access<Result>(
    _ operation: ConcurrencyViolation.Operation, object: ManagedObject?,
    others: [ManagedObject] = [],
    property: String? = nil, _ body: (Bool, ContextState) -> Result
  ) -> Result {
    state.withLock { state in
      let proceed = verify(
        operation, entity: { nil }, property: { property }, object: object, others: others,
        state: state)
      if proceed {
        if let object { fireFault(object, in: state) }
        for other in others { fireFault(other, in: state) }
      }
      return body(proceed, state)
    }
  }

  /// Lets the core's own work (predicates, sorting) read objects without reporting anything:
  /// the operation that started it was already checked once.
  func internally<Result, Failure: Error>(
    _ body: () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try PerformScope.run(frame: nestedFrame(), body)
  }
}
