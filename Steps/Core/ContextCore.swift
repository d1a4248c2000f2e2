import Dispatch
import Foundation
import Synchronization

/// The mutable state of one context and of all its objects, guarded by `ContextCore.state`.
final class ContextState {
  weak var owner: ManagedObjectContext?
  var mergePolicy = MergePolicy.error
  var automaticallyMergesChangesFromParent = false
  var isReadOnly = false
  var registered: [ManagedObjectID: ManagedObject] = [:]
  var inserted: Set<ManagedObjectID> = []
  var deleted: Set<ManagedObjectID> = []
  /// Objects written since the last save or rollback: the candidates for `updatedObjects`.
  var touched: Set<ManagedObjectID> = []
  var nextSerial: UInt64 = 1
  /// Temporary IDs this context made permanent on save, so that a child still holding the old ID
  /// finds the object.
  var aliases: [ManagedObjectID: ManagedObjectID] = [:]

  func objects(_ ids: Set<ManagedObjectID>) -> [ManagedObject] {
    ids.compactMap { registered[$0] }
  }

  func resolve(_ id: ManagedObjectID) -> ManagedObjectID {
    aliases[id] ?? id
  }
}

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
    PerformScope.Entry(id: id, displayName: displayName)
  }

  /// The caller's frame plus this context: what a `performAndWait` block may touch. A caller on
  /// the main queue is blocked until the block returns, so the block holds the main queue too.
  private func nestedFrame() -> PerformScope.Frame {
    var frame = PerformScope.current
    frame.holdsMainQueue = frame.holdsMainQueue || PerformScope.isOnMainQueue
    if !frame.entries.contains(where: { $0.id == id }) { frame.entries.append(scopeEntry) }
    return frame
  }

  /// The frame of a block that runs on its own, from the context's queue.
  private func ownFrame() -> PerformScope.Frame {
    PerformScope.Frame(entries: [scopeEntry])
  }

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
    let inScope = isInScope
    if inScope && proceed { return true }

    let kind: ConcurrencyViolation.Kind
    var location = PerformScope.describeCurrentLocation()
    var contextName = displayName
    if !inScope {
      kind = .outsidePerform
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

  /// Runs one checked operation under the lock.
  func access<Result, Failure: Error>(
    _ operation: ConcurrencyViolation.Operation, object: ManagedObject? = nil,
    entity: @autoclosure () -> String? = nil, property: @autoclosure () -> String? = nil,
    _ body: (ContextState) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try state.withLock { (state: ContextState) throws(Failure) -> Result in
      verify(operation, entity: entity, property: property, object: object, state: state)
      if let object { fireFault(object, in: state) }
      return try body(state)
    }
  }

  /// Runs a checked operation on objects; `body` gets false when it must leave them alone.
  private func access<Result>(
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

  // MARK: - Perform

  func enqueue(_ block: @escaping @Sendable () -> Void) {
    let frame = ownFrame()
    queue.async {
      PerformScope.run(frame: frame, block)
    }
  }

  func performAndWait<Result, Failure: Error>(
    _ block: @Sendable () throws(Failure) -> Result
  ) throws(Failure) -> Result {
    let frame = nestedFrame()
    if isInScope {
      return try PerformScope.run(frame: frame, block)
    }
    let outcome: Swift.Result<Result, Failure> = queue.sync {
      PerformScope.run(frame: frame) {
        Swift.Result { () throws(Failure) -> Result in try block() }
      }
    }
    return try outcome.get()
  }

  func perform<Result, Failure: Error>(
    schedule: ManagedObjectContext.ScheduledTaskType,
    _ block: @escaping @Sendable () throws(Failure) -> Result
  ) async throws(Failure) -> Result {
    if schedule == .immediate, isInScope {
      return try PerformScope.run(frame: nestedFrame(), block)
    }
    let frame = ownFrame()
    let outcome = await withUnsafeContinuation {
      (continuation: UnsafeContinuation<Swift.Result<Result, Failure>, Never>) in
      queue.async {
        let outcome = PerformScope.run(frame: frame) {
          Swift.Result { () throws(Failure) -> Result in try block() }
        }
        continuation.resume(returning: outcome)
      }
    }
    return try outcome.get()
  }

  // MARK: - Objects

  func registrationForInsert(of entity: ManagedObject.Type) -> ObjectRegistration {
    let serial = state.withLock { state in
      defer { state.nextSerial += 1 }
      return state.nextSerial
    }
    let id = ManagedObjectID(
      storeIdentifier: store.identifier, entityName: EntityNames.name(of: entity),
      storage: .temporary(context: self.id, serial: serial))
    return ObjectRegistration(core: self, id: id, isInserted: true)
  }

  func didInsert(_ object: ManagedObject) {
    access(.insert, entity: object.entityName) { state in
      state.registered[object.id] = object
      state.inserted.insert(object.id)
    }
  }

  func permanentID(row: Int64, entity: ManagedObject.Type) -> ManagedObjectID {
    ManagedObjectID(
      storeIdentifier: store.identifier, entityName: EntityNames.name(of: entity),
      storage: .permanent(row: row))
  }

  /// Loads the values of `object`'s whole batch, if it is a fault (lock held).
  func fireFault(_ object: ManagedObject, in state: ContextState) {
    guard object.core === self, let batch = object.fault else { return }
    for row in batch.rows {
      guard let member = state.registered[row.id], member.fault === batch else { continue }
      member.fault = nil
      member.load(row: row.values, version: row.version)
    }
  }

  @discardableResult
  func materialize(_ row: SourceRow, in state: ContextState) -> ManagedObject {
    if let existing = state.registered[row.id] { return existing }
    let object = row.entity.init(ObjectRegistration(core: self, id: row.id, isInserted: false))
    object.load(row: row.values, version: row.version)
    state.registered[row.id] = object
    return object
  }

  /// The registered object for `id`, fetched from the parent if needed (lock held).
  func object(for id: ManagedObjectID, in state: ContextState) -> ManagedObject? {
    if let object = state.registered[state.resolve(id)] {
      fireFault(object, in: state)
      return object
    }
    guard case .found(let row) = sourceLookup(id) else { return nil }
    return materialize(row, in: state)
  }

  private func relationshipCell(
    _ name: String, of object: ManagedObject
  ) -> RelationshipCell {
    guard let cell = object.cellsByName[name] as? RelationshipCell else {
      preconditionFailure("\(object.entityName) has no relationship named '\(name)'")
    }
    return cell
  }

  /// Sets a relationship and keeps its inverse in step.
  func relate(_ object: ManagedObject, through cell: RelationshipCell, to targets: [ManagedObject])
  {
    access(.write, object: object, others: targets, property: cell.name) { proceed, state in
      guard proceed else { return }
      let old = cell.targets
      let new = Set(targets.map(\.id))
      cell.targets = new
      state.touched.insert(object.id)
      guard let inverse = cell.inverseName else { return }
      for removed in old.subtracting(new) {
        guard let target = self.object(for: removed, in: state) else { continue }
        relationshipCell(inverse, of: target).targets.remove(object.id)
        state.touched.insert(target.id)
      }
      for target in targets where !old.contains(target.id) {
        let inverseCell = relationshipCell(inverse, of: target)
        if inverseCell.isToMany {
          inverseCell.targets.insert(object.id)
        } else {
          for previous in inverseCell.targets where previous != object.id {
            guard let owner = self.object(for: previous, in: state) else { continue }
            relationshipCell(cell.name, of: owner).targets.remove(target.id)
            state.touched.insert(owner.id)
          }
          inverseCell.targets = [object.id]
        }
        state.touched.insert(target.id)
      }
    }
  }

  func delete(_ object: ManagedObject) {
    access(.delete, object: object) { proceed, state in
      guard proceed, markDeleted(object, in: state) else { return }
      // Nullify: the objects pointing back at this one forget it.
      for case let cell as RelationshipCell in object.cells {
        guard let inverse = cell.inverseName else { continue }
        for targetID in cell.targets {
          guard let target = self.object(for: targetID, in: state) else { continue }
          relationshipCell(inverse, of: target).targets.remove(object.id)
          state.touched.insert(targetID)
        }
      }
    }
  }

  /// Marks `object` for deletion at the next save (lock held); false if there was nothing to do.
  func markDeleted(_ object: ManagedObject, in state: ContextState) -> Bool {
    switch object.lifecycle {
    case .inserted: object.lifecycle = .deleted(wasInserted: true)
    case .persisted: object.lifecycle = .deleted(wasInserted: false)
    case .deleted, .detached, .scratch: return false
    }
    state.inserted.remove(object.id)
    state.deleted.insert(object.id)
    return true
  }

  func detach(
    _ object: ManagedObject, _ reason: ManagedObject.DetachReason,
    in state: ContextState
  ) {
    object.lifecycle = .detached(reason)
    state.registered[object.id] = nil
    state.inserted.remove(object.id)
    state.deleted.remove(object.id)
    state.touched.remove(object.id)
  }

  /// Gives objects new IDs and rewrites every reference to the old ones (lock held).
  func rekey(_ map: [ManagedObjectID: ManagedObjectID], in state: ContextState) {
    guard !map.isEmpty else { return }
    state.aliases.merge(map) { $1 }
    for (old, new) in map {
      guard let object = state.registered.removeValue(forKey: old) else { continue }
      object.id = new
      state.registered[new] = object
      if state.inserted.remove(old) != nil { state.inserted.insert(new) }
      if state.deleted.remove(old) != nil { state.deleted.insert(new) }
      if state.touched.remove(old) != nil { state.touched.insert(new) }
    }
    for object in state.registered.values where object.hasRelationships {
      for cell in object.cells { cell.remap(map) }
      object.committed = object.committed.mapValues { $0.remapping(map) }
    }
  }

  func obtainPermanentIDs(for objects: [ManagedObject]) {
    access(.obtainPermanentIDs, object: nil, others: objects) { proceed, state in
      guard proceed else { return }
      let temporary = objects.filter { $0.id.isTemporaryID }
      let rows = store.reserveRows(temporary.count)
      var map: [ManagedObjectID: ManagedObjectID] = [:]
      for (object, row) in zip(temporary, rows) {
        map[object.id] = permanentID(row: row, entity: type(of: object))
      }
      rekey(map, in: state)
    }
  }

  // MARK: - Inspecting changes

  var hasChanges: Bool {
    access(.inspectChanges) { $0.hasChanges }
  }

  func insertedObjects() -> Set<ManagedObject> {
    access(.inspectChanges) { Set($0.objects($0.inserted)) }
  }

  func deletedObjects() -> Set<ManagedObject> {
    access(.inspectChanges) { Set($0.objects($0.deleted)) }
  }

  func updatedObjects() -> Set<ManagedObject> {
    access(.inspectChanges) { state in
      Set(
        state.objects(state.touched).filter { $0.lifecycle == .persisted && $0.hasPendingChanges })
    }
  }

  func registeredObjects() -> Set<ManagedObject> {
    access(.inspectChanges) { Set($0.registered.values) }
  }

  // MARK: - Fetching

  private enum Candidate {
    case object(ManagedObject)
    case row(SourceRow)
  }

  /// Matches in store order, then pending inserts; pending deletions are left out. Registered
  /// objects are judged by their in-memory values, other rows through one reusable probe object,
  /// so a fetch materializes only what it returns.
  private func candidates<Entity: ManagedObject>(
    for request: FetchRequest<Entity>, in state: ContextState
  ) throws(PersistenceError) -> [Candidate] {
    func matches(_ object: ManagedObject) throws(PersistenceError) -> Bool {
      guard let predicate = request.predicate else { return true }
      // A pending object with a required attribute still unset would stop the program when the
      // predicate reads it; like a nil in Core Data's in-memory evaluation, it matches nothing.
      if object.lifecycle == .inserted, object.cells.contains(where: \.isMissingRequiredValue) {
        return false
      }
      do {
        return try predicate.evaluate(object as! Entity)
      } catch {
        throw .predicateFailed(String(describing: error))
      }
    }
    var result: [Candidate] = []
    var probe = RowProbe<Entity>(core: self)
    for row in sourceRows(of: Entity.self) {
      if let object = state.registered[state.resolve(row.id)] {
        if object.lifecycle == .persisted, try matches(object) { result.append(.object(object)) }
      } else if try probe.matches(row, request.predicate) {
        result.append(.row(row))
      }
    }
    let inserted = state.objects(state.inserted).filter { $0 is Entity }
      .sorted { $0.insertionSerial < $1.insertionSerial }
    for object in inserted where try matches(object) {
      result.append(.object(object))
    }
    return result
  }

  private func window<Element>(_ elements: [Element], _ offset: Int, _ limit: Int) -> [Element] {
    let dropped = elements.dropFirst(max(offset, 0))
    return Array(limit > 0 ? dropped.prefix(limit) : dropped)
  }

  private func fetchObjects<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>, in state: ContextState
  ) throws(PersistenceError) -> [Entity] {
    try internally { () throws(PersistenceError) -> [Entity] in
      var found = try candidates(for: request, in: state)
      if request.sortDescriptors.isEmpty {
        found = window(found, request.fetchOffset, request.fetchLimit)
      }
      // With a batch size, rows become faults that load a batch at a time on first use.
      let batchSize = request.sortDescriptors.isEmpty ? max(request.fetchBatchSize, 0) : 0
      var batch = FaultBatch()
      var objects = found.map { candidate -> Entity in
        switch candidate {
        case .object(let object):
          return object as! Entity
        case .row(let row) where batchSize > 0 && state.registered[row.id] == nil:
          if batch.rows.count == batchSize { batch = FaultBatch() }
          batch.rows.append(row)
          let object = row.entity.init(
            ObjectRegistration(core: self, id: row.id, isInserted: false))
          object.fault = batch
          state.registered[row.id] = object
          return object as! Entity
        case .row(let row):
          return materialize(row, in: state) as! Entity
        }
      }
      if !request.sortDescriptors.isEmpty {
        objects.sort(using: request.sortDescriptors)
        objects = window(objects, request.fetchOffset, request.fetchLimit)
      }
      return objects
    }
  }

  func fetch<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [Entity] {
    try access(.fetch, entity: EntityNames.name(of: Entity.self)) {
      (state) throws(PersistenceError) in
      try fetchObjects(request, in: state)
    }
  }

  func fetchObjectIDs<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [ManagedObjectID] {
    try access(.fetch, entity: EntityNames.name(of: Entity.self)) {
      (state) throws(PersistenceError) in
      guard request.sortDescriptors.isEmpty else {
        return try fetchObjects(request, in: state).map(\.id)
      }
      let found = try internally { () throws(PersistenceError) in
        try candidates(for: request, in: state)
      }
      return window(found, request.fetchOffset, request.fetchLimit).map { candidate in
        switch candidate {
        case .object(let object): object.id
        case .row(let row): row.id
        }
      }
    }
  }

  func count<Entity: ManagedObject>(
    for request: FetchRequest<Entity>
  ) throws(PersistenceError) -> Int {
    try access(.count, entity: EntityNames.name(of: Entity.self)) {
      (state) throws(PersistenceError) in
      let found = try internally { () throws(PersistenceError) in
        try candidates(for: request, in: state)
      }
      return window(found, request.fetchOffset, request.fetchLimit).count
    }
  }

  func existingObject(with id: ManagedObjectID) throws(PersistenceError) -> ManagedObject {
    try access(.existingObject, entity: id.entityName) {
      (state) throws(PersistenceError) -> ManagedObject in
      guard id.storeIdentifier == store.identifier else { throw .foreignStore(id) }
      let lookup = sourceLookup(id)
      if let object = state.registered[state.resolve(id)] {
        // A registered object whose row another context deleted is stale: say so.
        if object.lifecycle == .persisted, case .deleted = lookup {
          detach(object, .deletedInStore, in: state)
          throw .objectDeleted(id)
        }
        return object
      }
      switch lookup {
      case .found(let row): return materialize(row, in: state)
      case .deleted: throw .objectDeleted(id)
      case .missing:
        if case .temporary(let context, _) = id.storage, context != self.id {
          throw .temporaryIDOutsideItsContext(id)
        }
        throw .objectNotFound(id)
      }
    }
  }

  // MARK: - Saving

  func save() throws(PersistenceError) {
    // Like NSManagedObjectContextWillSave: a save with changes announces itself first, on the
    // saving thread and outside the lock, so an observer may still use the context.
    if hub.hasWillSaveObservers, state.withLock(\.hasChanges) {
      hub.postWillSave(ContextWillSave(contextName: name))
    }
    let note = try access(.save) { (state) throws(PersistenceError) -> ContextDidSave? in
      try internally { () throws(PersistenceError) in try commit(state) }
    }
    if let note { hub.post(note) }
  }

  private func commit(_ state: ContextState) throws(PersistenceError) -> ContextDidSave? {
    if state.isReadOnly, !state.inserted.isEmpty || !state.deleted.isEmpty || !state.touched.isEmpty
    {
      throw .readOnlyContext(name ?? displayName)
    }
    // Rows are numbered in insertion order, so unsorted fetches come back in that order.
    let inserted = state.objects(state.inserted).sorted { $0.insertionSerial < $1.insertionSerial }
    let deleted = state.objects(state.deleted)
    let updated = state.objects(state.touched).filter {
      $0.lifecycle == .persisted && $0.hasPendingChanges
    }
    guard !inserted.isEmpty || !deleted.isEmpty || !updated.isEmpty else { return nil }

    let failures = (inserted + updated).flatMap { object in
      object.cells.filter(\.isMissingRequiredValue).map {
        ValidationFailure(objectID: object.id, entityName: object.entityName, property: $0.name)
      }
    }
    guard failures.isEmpty else {
      throw .validation(
        failures.sorted {
          ($0.objectID.description, $0.property) < ($1.objectID.description, $1.property)
        })
    }

    if let parent {
      return try commit(
        into: parent, inserted: inserted, updated: updated, deleted: deleted, state: state)
    }
    return try commitToStore(inserted: inserted, updated: updated, deleted: deleted, state: state)
  }

  /// A save at the root: the store checks versions and resolves conflicts, all or nothing.
  private func commitToStore(
    inserted: [ManagedObject], updated: [ManagedObject], deleted: [ManagedObject],
    state: ContextState
  ) throws(PersistenceError) -> ContextDidSave {
    // Permanent IDs first, so that rows refer to each other by their final IDs.
    let temporary = inserted.filter { $0.id.isTemporaryID }
    var map: [ManagedObjectID: ManagedObjectID] = [:]
    for (object, row) in zip(temporary, store.reserveRows(temporary.count)) {
      map[object.id] = permanentID(row: row, entity: type(of: object))
    }
    func final(_ values: [String: StoredValue]) -> [String: StoredValue] {
      values.mapValues { $0.remapping(map) }
    }
    let inserts = inserted.map { object in
      InMemoryStore.Insert(
        row: (map[object.id] ?? object.id).row!, entity: type(of: object),
        values: final(object.storedValues()))
    }
    let updates = updated.map { object in
      InMemoryStore.Update(
        objectID: object.id, row: object.id.row!, changed: final(object.changedStoredValues()),
        all: final(object.storedValues()), snapshot: object.committed,
        readVersion: object.version)
    }
    let deletes = deleted.compactMap { object -> InMemoryStore.Delete? in
      guard object.lifecycle == .deleted(wasInserted: false), let row = object.id.row else {
        return nil
      }
      return InMemoryStore.Delete(
        objectID: object.id, row: row, readVersion: object.version, snapshot: object.committed)
    }

    let result = try store.commit(
      inserts: inserts, updates: updates, deletes: deletes, policy: state.mergePolicy)

    // The store accepted the save: bring the context in line with it.
    var updatedIDs: Set<ManagedObjectID> = []
    var deletedIDs: Set<ManagedObjectID> = []
    for object in updated + deleted {
      switch result.resolutions[object.id] {
      case .stored(let values, let version, let written)?:
        if written { updatedIDs.insert(object.id) }
        object.lifecycle = .persisted
        object.load(row: values, version: version)
      case .deleted?:
        if object.lifecycle == .deleted(wasInserted: false) { deletedIDs.insert(object.id) }
        detach(object, object.lifecycle == .persisted ? .deletedInStore : .deletionSaved, in: state)
      case nil:
        detach(object, .insertionDiscarded, in: state)
      }
    }
    // An insert that hit a uniqueness constraint became the row that held the key.
    var insertedIDs: Set<ManagedObjectID> = []
    for (object, insert) in zip(inserted, inserts) {
      let placement = result.placements[insert.row]!
      let final = permanentID(row: placement.row, entity: type(of: object))
      if placement.row == insert.row {
        insertedIDs.insert(final)
      } else {
        updatedIDs.insert(final)
        map[object.id] = final
      }
      if let holder = state.registered[final], holder !== object {
        holder.load(row: placement.values, version: placement.version)
        detach(object, .insertionDiscarded, in: state)
        continue
      }
      object.lifecycle = .persisted
      object.load(row: placement.values, version: placement.version)
    }
    rekey(map.filter { state.registered[$0.key]?.isDetached == false }, in: state)
    state.inserted.removeAll()
    state.deleted.removeAll()
    state.touched.removeAll()
    return ContextDidSave(
      contextName: name, contextID: id,
      insertedObjectIDs: insertedIDs, updatedObjectIDs: updatedIDs,
      deletedObjectIDs: deletedIDs, reachedStore: true, permanentIDs: map)
  }

  /// A save into the parent context: the changes become the parent's pending changes, as in Core
  /// Data. Objects keep their IDs, temporary ones too, until the parent saves.
  private func commit(
    into parent: ContextCore, inserted: [ManagedObject], updated: [ManagedObject],
    deleted: [ManagedObject], state: ContextState
  ) throws(PersistenceError) -> ContextDidSave {
    let deletions = deleted.filter { $0.lifecycle == .deleted(wasInserted: false) }
    try parent.applyChildSave(
      inserts: inserted.map { ($0.id, type(of: $0), $0.storedValues()) },
      updates: updated.map { ($0.id, $0.changedStoredValues()) },
      deletes: deletions.map(\.id))
    for object in inserted + updated {
      object.lifecycle = .persisted
      object.committed = object.storedValues()
    }
    for object in deleted {
      let reason: ManagedObject.DetachReason =
        object.lifecycle == .deleted(wasInserted: true) ? .insertionDiscarded : .deletionSaved
      detach(object, reason, in: state)
    }
    state.inserted.removeAll()
    state.deleted.removeAll()
    state.touched.removeAll()
    return ContextDidSave(
      contextName: name, contextID: id, insertedObjectIDs: Set(inserted.map(\.id)),
      updatedObjectIDs: Set(updated.map(\.id)), deletedObjectIDs: Set(deletions.map(\.id)),
      reachedStore: false, permanentIDs: [:])
  }

  // MARK: - Undoing and refreshing

  func rollback() {
    access(.rollback) { state in
      for object in state.objects(state.inserted.union(state.deleted)) {
        if object.lifecycle == .inserted || object.lifecycle == .deleted(wasInserted: true) {
          detach(object, .insertionDiscarded, in: state)
        }
      }
      for object in state.objects(state.touched.union(state.deleted)) {
        object.lifecycle = .persisted
        object.load(row: object.committed, version: object.version)
      }
      state.inserted.removeAll()
      state.deleted.removeAll()
      state.touched.removeAll()
    }
  }

  func reset() {
    access(.reset) { state in
      for object in state.registered.values { object.lifecycle = .detached(.reset) }
      state.registered.removeAll()
      state.inserted.removeAll()
      state.deleted.removeAll()
      state.touched.removeAll()
    }
  }

  func refresh(_ object: ManagedObject, mergeChanges: Bool) {
    access(.refresh, object: object) { proceed, state in
      guard proceed else { return }
      reload(object, keepingChanges: mergeChanges, in: state)
    }
  }

  /// Reads the object's row again; with `keepingChanges`, pending changes are laid on top.
  private func reload(
    _ object: ManagedObject, keepingChanges: Bool, in state: ContextState
  ) {
    guard object.lifecycle != .inserted else { return }
    guard case .found(let row) = sourceLookup(object.id) else {
      detach(object, .deletedInStore, in: state)
      return
    }
    let changes = keepingChanges ? object.changedStoredValues() : [:]
    object.load(row: row.values, version: row.version)
    for (name, change) in changes { object.cellsByName[name]?.load(change) }
    if changes.isEmpty, object.lifecycle == .persisted { state.touched.remove(object.id) }
  }

  func mergeChanges(fromContextDidSave note: ContextDidSave) {
    access(.mergeChanges) { state in merge(note, in: state) }
  }

  private func merge(_ note: ContextDidSave, in state: ContextState) {
    // A parent's save made temporary IDs permanent: adopt them before looking anything up.
    rekey(note.permanentIDs.filter { state.registered[$0.key] != nil }, in: state)
    for id in note.updatedObjectIDs {
      guard let object = state.registered[id] else { continue }
      reload(object, keepingChanges: true, in: state)
    }
    for id in note.deletedObjectIDs {
      guard let object = state.registered[id] else { continue }
      detach(object, .deletedInStore, in: state)
    }
  }

  /// Called by the hub for every save of another context of the same container. A context that
  /// merges automatically takes the saves of its parent; a context on the store takes the saves
  /// that reached the store.
  func mergeAutomaticallyIfEnabled(_ note: ContextDidSave) {
    let fromParent = parent != nil && parent?.id == note.contextID
    let fromStore = parent == nil && note.reachedStore
    guard fromParent || fromStore, note.contextID != id,
      state.withLock({ $0.automaticallyMergesChangesFromParent })
    else { return }
    enqueue { [self] in
      state.withLock { state in merge(note, in: state) }
    }
  }
}

extension ManagedObject {
  /// Orders pending inserts by creation (lock held).
  var insertionSerial: UInt64 {
    if case .temporary(_, let serial) = id.storage { return serial }
    return 0
  }
}

extension ContextState {
  /// Whether a save would write anything.
  var hasChanges: Bool {
    !inserted.isEmpty || !deleted.isEmpty || objects(touched).contains { $0.hasPendingChanges }
  }
}
