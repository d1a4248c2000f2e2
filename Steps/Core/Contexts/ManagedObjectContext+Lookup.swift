import Foundation

// The three ways to go from an ID to an object, as in Core Data. They differ in what they do
// when the object is not registered in this context, which matters when IDs travel:
//
// - `registeredObject(for:)` never reads: nil unless this context already has the object.
// - `object(with:)` never fails: the registered object, or a fault for the row.
// - `existingObject(with:)` reads and checks: the object with its values, or an error.
//
// "Already has" lasts only while something holds the object: a context keeps an object with no
// pending changes weakly, as Core Data does (`retainsRegisteredObjects`, below).

extension ManagedObjectContext {
  /// Whether the context keeps every registered object alive (true), or, by default (false, as
  /// in Core Data), only those with pending changes. Apple, `retainsRegisteredObjects`: "If set to
  /// false, then the receiver keeps strong references to registered objects only when they are
  /// inserted, updated, deleted, or locked. The default is false." An object that nothing else
  /// references then leaves the context once it is saved or unchanged: ``registeredObject(for:)``
  /// and ``registeredObjects`` no longer list it, and ``existingObject(with:)`` or
  /// ``object(with:)`` make a new one from the store's row. Thread-safe, like the other settings.
  public var retainsRegisteredObjects: Bool {
    get { core.state.withLock { $0.registered.retainsAll } }
    set {
      core.state.withLock { state in
        state.registered.retainsAll = newValue
        if !newValue { state.releaseUnchanged() }
      }
    }
  }

  /// The object for `objectID` if it is registered in this context, else nil; never fetches,
  /// like Core Data's `registeredObject(for:)`. Apple: "A nil return value means the context
  /// doesn't recognize the specified object; the object might still exist in the persistent
  /// store. If you need to query both the context and the store, use existingObject(with:)". An
  /// unchanged object that nobody holds is not registered any more
  /// (``retainsRegisteredObjects``).
  public func registeredObject(for objectID: ManagedObjectID) -> ManagedObject? {
    core.registeredObject(for: objectID)
  }

  /// The object for `objectID`, like Core Data's `object(with:)`: the registered object, or a
  /// fault whose values load on first use. It does not check that the object exists, and is
  /// meant for IDs known to be valid. For a row that is gone, Core Data returns a fault that, when
  /// fired, comes back deleted with nil or 0 values (`shouldDeleteInaccessibleFaults`, true by
  /// default) or raises; the core stops the program here, naming the ID, because it cannot make
  /// an object of an entity it no longer knows.
  public func object(with objectID: ManagedObjectID) -> ManagedObject {
    core.object(with: objectID)
  }

  /// Refreshes every registered object, keeping unsaved changes, like Core Data's
  /// `refreshAllObjects()`. An object whose row another context deleted becomes a pending deletion.
  public func refreshAllObjects() {
    core.refreshAllObjects()
  }
}

extension ContextCore {
  func registeredObject(for id: ManagedObjectID) -> ManagedObject? {
    access(.registeredObject, entity: id.entityName) { state in
      state.registered[state.resolve(id)]
    }
  }

  func object(with id: ManagedObjectID) -> ManagedObject {
    access(.objectWithID, entity: id.entityName) { state in
      if let object = state.registered[state.resolve(id)] { return object }
      guard id.storeIdentifier == store.identifier, case .found(let row) = sourceLookup(id) else {
        preconditionFailure(
          "object(with:) could not fulfill a fault for \(id): no such row in this context's "
            + "store. Use existingObject(with:) when the object may be gone.")
      }
      return registerFault(row, in: state)
    }
  }
}

/// Gives every entity `fetchRequest()`, as the class Xcode generates for an entity does.
public protocol FetchRequestProviding {}

extension ManagedObject: FetchRequestProviding {}

extension FetchRequestProviding where Self: ManagedObject {
  /// A request for every object of this entity: `Book.fetchRequest()`.
  public static func fetchRequest() -> FetchRequest<Self> {
    FetchRequest<Self>()
  }
}
