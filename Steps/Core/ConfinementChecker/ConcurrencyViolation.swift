/// What the core does when code touches a context or managed object outside its confinement.
public enum ConcurrencyCheckingPolicy: Sendable, Hashable {
  /// Append a ``ConcurrencyViolation`` to ``PersistentContainer/violations`` and carry on.
  /// The core's own locks keep it consistent, so tests can count violations instead of crashing.
  case record
  /// Stop the process with the violation's description, like Core Data's
  /// `-com.apple.CoreData.ConcurrencyDebug 1`.
  case trap
  /// No checking at all.
  case off
}

/// One use of a context or managed object that broke its confinement.
public struct ConcurrencyViolation: Sendable, Hashable, CustomStringConvertible {
  /// Which rule was broken.
  public enum Kind: Sendable, Hashable {
    /// Touched outside the owning context's `perform`/`performAndWait` (or the main queue, for a
    /// main-queue context).
    case outsidePerform
    /// An object was used with a context it does not belong to.
    case foreignContext
    /// An object was used after `reset()` or after its deletion was saved.
    case invalidatedObject
  }

  /// What the code tried to do.
  public enum Operation: String, Sendable, Hashable {
    case read, write, insert, delete, fetch, count, save, rollback, reset, refresh
    case existingObject, obtainPermanentIDs, mergeChanges, inspectChanges, processPendingChanges
    /// `object(with:)`, `registeredObject(for:)`, `refreshAllObjects()`: a report names the call.
    case objectWithID, registeredObject, refreshAllObjects
    /// A batch insert, update or delete request.
    case execute
  }

  public let kind: Kind
  public let operation: Operation
  /// The entity involved, if any (for example `CoreDataEntity`).
  public let entity: String?
  /// The attribute or relationship involved, if any (for example `name`).
  public let property: String?
  /// The context that owns what was touched.
  public let contextName: String
  /// Where the code ran instead: queue, task or thread, and which perform blocks were active.
  public let location: String

  /// The rule in one sentence, as the workshop's slides state it.
  public var rule: String {
    switch kind {
    case .outsidePerform:
      "A context and its managed objects may only be used inside that context's perform or "
        + "performAndWait block (for a main-queue context, also on the main queue)."
    case .foreignContext:
      "A managed object belongs to one context; to use it elsewhere, pass its objectID and "
        + "refetch it with existingObject(with:) inside the other context's perform."
    case .invalidatedObject:
      "An object is invalid after its context was reset or its deletion was saved; "
        + "refetch it by objectID instead of keeping it."
    }
  }

  /// What was touched, for example `write of CoreDataEntity.name`.
  public var subject: String {
    switch (entity, property) {
    case (let entity?, let property?): "\(operation.rawValue) of \(entity).\(property)"
    case (let entity?, nil): "\(operation.rawValue) of \(entity)"
    default: operation.rawValue
    }
  }

  /// The violation without the rule: what, whose, where.
  public var summary: String {
    "\(title): \(subject) (context '\(contextName)') \(location)."
  }

  public var description: String {
    "\(summary) Rule: \(rule)"
  }

  private var title: String {
    switch kind {
    case .outsidePerform: "Confinement violation"
    case .foreignContext: "Cross-context violation"
    case .invalidatedObject: "Invalidated-object violation"
    }
  }
}

/// Applies a container's policy to violations and keeps the recorded ones.
final class ViolationReporter: Sendable {
  let policy: ConcurrencyCheckingPolicy
  private let log = Locked<[ConcurrencyViolation]>([])

  init(policy: ConcurrencyCheckingPolicy) {
    self.policy = policy
  }

  var isChecking: Bool { policy != .off }

  var recorded: [ConcurrencyViolation] { log.withLock { $0 } }

  func removeAll() -> [ConcurrencyViolation] {
    log.withLock { log in
      defer { log.removeAll() }
      return log
    }
  }

  func report(_ violation: ConcurrencyViolation) {
    switch policy {
    case .off: return
    case .record: log.withLock { $0.append(violation) }
    case .trap: fatalError(violation.description)
    }
  }
}
