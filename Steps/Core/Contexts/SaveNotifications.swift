import Foundation

/// What a successful save changed in the store, like `NSManagedObjectContextDidSave`.
///
/// It carries object IDs only, so it is Sendable: hand it to another context's
/// ``ManagedObjectContext/mergeChanges(fromContextDidSave:)`` inside that context's `perform`.
public struct ContextDidSave: Sendable, Hashable {
  /// The saving context's name, if it had one.
  public let contextName: String?
  let contextID: ContextID
  public let insertedObjectIDs: Set<ManagedObjectID>
  public let updatedObjectIDs: Set<ManagedObjectID>
  public let deletedObjectIDs: Set<ManagedObjectID>
  /// True when the save reached the store; false for a child's save into its parent.
  let reachedStore: Bool
  /// The context a child's save went into; nil when the save reached the store.
  var savedInto: ContextID? = nil
  /// The permanent IDs the save gave to inserted objects, by their temporary IDs.
  let permanentIDs: [ManagedObjectID: ManagedObjectID]
}

/// A save about to write changes, like `NSManagedObjectContext.willSaveObjectsNotification`.
public struct ContextWillSave: Sendable, Hashable {
  /// The saving context's name, if it had one.
  public let contextName: String?
}

/// A registration made with ``PersistentContainer/addSaveObserver(_:)`` or
/// ``PersistentContainer/addWillSaveObserver(_:)``.
public struct SaveObserverToken: Sendable, Hashable {
  let rawValue: UInt64
}

/// Fans save notifications out to observers, streams, and contexts that merge automatically.
final class SaveHub: Sendable {
  private struct State {
    var nextToken: UInt64 = 1
    var observers: [UInt64: @Sendable (ContextDidSave) -> Void] = [:]
    var willSaveObservers: [UInt64: @Sendable (ContextWillSave) -> Void] = [:]
    var contexts: [ContextID: WeakContextCore] = [:]
  }

  private struct WeakContextCore {
    weak var core: ContextCore?
  }

  private let state = Locked(State())

  func addObserver(_ observer: @escaping @Sendable (ContextDidSave) -> Void) -> SaveObserverToken {
    newToken { $0.observers[$1] = observer }
  }

  func addWillSaveObserver(
    _ observer: @escaping @Sendable (ContextWillSave) -> Void
  ) -> SaveObserverToken {
    newToken { $0.willSaveObservers[$1] = observer }
  }

  private func newToken(_ register: (inout State, UInt64) -> Void) -> SaveObserverToken {
    state.withLock { state in
      defer { state.nextToken += 1 }
      register(&state, state.nextToken)
      return SaveObserverToken(rawValue: state.nextToken)
    }
  }

  func removeObserver(_ token: SaveObserverToken) {
    state.withLock {
      _ = $0.observers.removeValue(forKey: token.rawValue)
      _ = $0.willSaveObservers.removeValue(forKey: token.rawValue)
    }
  }

  var hasWillSaveObservers: Bool {
    state.withLock { !$0.willSaveObservers.isEmpty }
  }

  func postWillSave(_ note: ContextWillSave) {
    for observer in state.withLock({ Array($0.willSaveObservers.values) }) { observer(note) }
  }

  func stream() -> AsyncStream<ContextDidSave> {
    let (stream, continuation) = AsyncStream.makeStream(of: ContextDidSave.self)
    let token = addObserver { continuation.yield($0) }
    continuation.onTermination = { [weak self] _ in self?.removeObserver(token) }
    return stream
  }

  func register(_ core: ContextCore) {
    state.withLock { state in
      state.contexts = state.contexts.filter { $0.value.core != nil }
      state.contexts[core.id] = WeakContextCore(core: core)
    }
  }

  /// Delivers `note` after the save has released every lock.
  func post(_ note: ContextDidSave) {
    let (observers, contexts) = state.withLock { state in
      (Array(state.observers.values), state.contexts.values.compactMap(\.core))
    }
    for context in contexts where context.id != note.contextID {
      context.mergeAutomaticallyIfEnabled(note)
    }
    for observer in observers { observer(note) }
  }
}
