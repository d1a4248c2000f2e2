import Foundation

/// The objects a context has registered, by ID, held as Core Data holds them: weakly, except
/// those with pending changes, which the context keeps itself.
///
/// Apple, `retainsRegisteredObjects`: "If set to false, then the receiver keeps strong references
/// to registered objects only when they are inserted, updated, deleted, or locked. The default is
/// false." So an unchanged object that nothing else references leaves the context:
/// `registeredObject(for:)` answers nil ("the object might still exist in the persistent store.
/// If you need to query both the context and the store, use existingObject(with:)"), and a later
/// look-up makes a new object from the row its parent or the store holds then. The values it held
/// go with it: they were its committed row, which the source still has (or has newer). The core
/// has no row cache to keep them in (Tests/FIDELITY.md, "Where it differs").
///
/// Lives in `ContextState`, so every read and write of it, the weak references included, happens
/// under the context's lock. An object's last strong reference may go on any thread at any time;
/// Swift's weak references are safe to read while that happens, and read nil from then on. The
/// entry left behind is swept away later, never from a `deinit`: a `deinit` runs wherever the
/// last reference went, possibly holding another context's lock, and taking this one there could
/// break the lock order (`Steps/Core/CONCURRENCY.md`).
struct Registry {
  private struct Entry {
    weak var object: ManagedObject?
  }

  private var entries: [ManagedObjectID: Entry] = [:]
  /// The objects the context keeps alive itself: those with pending changes, or every one while
  /// `retainsAll` is set. Keyed by identity, so that a re-keyed object needs no update here.
  private var retained: [ObjectIdentifier: ManagedObject] = [:]
  /// The entry count at which dead entries are swept next: twice the live count after a sweep,
  /// so that sweeping costs O(1) per registration, amortized.
  private var sweepAt = 64

  /// Core Data's `retainsRegisteredObjects`: keep every registered object alive.
  var retainsAll = false {
    didSet {
      guard retainsAll, !oldValue else { return }
      for object in values { retained[ObjectIdentifier(object)] = object }
    }
  }

  /// The live object registered under `id`; assigning registers it (weakly, unless `retainsAll`),
  /// assigning nil unregisters and lets it go.
  subscript(id: ManagedObjectID) -> ManagedObject? {
    get { entries[id]?.object }
    set {
      guard let newValue else {
        if let old = entries.removeValue(forKey: id)?.object {
          retained[ObjectIdentifier(old)] = nil
        }
        return
      }
      entries[id] = Entry(object: newValue)
      if retainsAll { retained[ObjectIdentifier(newValue)] = newValue }
      if entries.count >= sweepAt { sweep() }
    }
  }

  /// Every live registered object.
  var values: [ManagedObject] { entries.values.compactMap(\.object) }

  /// True when nothing was registered since the last `removeAll()` (a dead entry not yet swept
  /// still counts): a fast path for a fresh context, not an answer to "is anything registered".
  var isEmpty: Bool { entries.isEmpty }

  /// Moves `old`'s object to `new`, as a save or a merge makes a temporary ID permanent; returns
  /// it, or nil when no live object is registered under `old`.
  mutating func rekey(_ old: ManagedObjectID, to new: ManagedObjectID) -> ManagedObject? {
    guard let object = entries.removeValue(forKey: old)?.object else { return nil }
    entries[new] = Entry(object: object)
    return object
  }

  /// Forgets every object.
  mutating func removeAll() {
    entries.removeAll()
    retained.removeAll()
  }

  /// Keeps `object` alive: it has pending changes now.
  mutating func retain(_ object: ManagedObject) {
    retained[ObjectIdentifier(object)] = object
  }

  /// Lets go of `object`, which has no pending changes any more, unless `retainsAll`.
  mutating func release(_ object: ManagedObject) {
    guard !retainsAll else { return }
    retained[ObjectIdentifier(object)] = nil
  }

  /// Lets go of the retained objects for which `hasChanges` is false, unless `retainsAll`.
  mutating func releaseUnchanged(_ hasChanges: (ManagedObject) -> Bool) {
    guard !retainsAll, !retained.isEmpty else { return }
    retained = retained.filter { hasChanges($0.value) }
  }

  private mutating func sweep() {
    entries = entries.filter { $0.value.object != nil }
    sweepAt = max(64, entries.count * 2)
  }
}
