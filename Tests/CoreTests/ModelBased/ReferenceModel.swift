/// The reference model: plain values for what the store and each context must hold, written from
/// Apple's documentation, never from the core's code. Objects are numbered in the order the
/// program makes them (`#0`, `#1`, …); a book's `author` is the author's number.
///
/// Apple's sentences it follows (developer.apple.com, `NSManagedObjectContext` unless named):
/// - `rollback()`: "discards all insertions and deletions, and restores updated objects to their
///   last committed values"; "This method does not refetch data from the persistent store".
/// - `reset()`: "All the receiver's managed objects are 'forgotten.'"
/// - `refresh(_:mergeChanges:)`: with false, "the context discards pending changes and the managed
///   object becomes a fault. Upon next access, the context reloads the object's values from the
///   persistent store or last cached state"; with true, it "reloads the object's property values
///   from the store or the cache. Then the context applies local changes over the newly loaded
///   values."
/// - `mergeChanges(fromContextDidSave:)`: "refreshes any objects which have been updated in the
///   other context, faults in any newly-inserted objects, and invokes delete(_:) on those which
///   have been deleted"; `automaticallyMergesChangesFromParent`: "merges changes saved to its
///   persistent store coordinator or parent context" (quoted in the core's
///   `ContextCore+Refreshing.swift`).
/// - `delete(_:)`: "If object has not yet been saved to a persistent store, it is simply removed
///   from the receiver." (issue 24)
/// - Core Data Batch Programming Guide: merging a batch delete's IDs "causes the referenced
///   NSManagedObjectContext instances to remove any objects in memory that are loaded which
///   match" (issue 24); batch requests write the store and reach contexts only through that merge.
/// - A save writes into the parent context, or the store for a context on it; a child's fault
///   fires with its parent's current row, pending changes included (issue 24, item 1).
/// - Conflicts, as Tests/FIDELITY.md states them: `.error` fails a save whose updated or deleted
///   row changed since it was read (optimistic locking); `.mergeByPropertyObjectTrump` keeps the
///   context's changed properties over the store's. A set marks the object updated even when it
///   writes the same value (`SameValueWriteTests` cites Apple).
///
/// - `propagatesDeletesAtEndOfEvent`: a context "propagates deletes at the end of the event in
///   which a change was made" (or during a save): a child's deletion pushed into its parent runs
///   the delete rule there too (`ChildDeletionRuleTests`).
/// - `retainsRegisteredObjects`: "If set to false, then the receiver keeps strong references to
///   registered objects only when they are inserted, updated, deleted, or locked. The default is
///   false." The programs hold no object across steps, so after every step a context that does
///   not retain its objects has forgotten each one without changes (`forgetUnheld`); one that
///   does keeps them all, stale values included.
///
/// Where Apple leaves a choice open (when a fetched object is loaded rather than a fault), the
/// checker follows the core's choice (see `ModelCheck`); where Apple says nothing, the generator
/// does not ask (a child's edit of an object its parent deleted), or the model takes the core's
/// documented choice and says so where it does: what a fault whose row is gone keeps (`Object`),
/// which inverses a to-many write changes (`addBook`), how a relationship to a gone row reads
/// (`reaches`), the rows a batch delete leaves naming it (`dangling`).
struct ReferenceModel {
  enum Entity: String, Codable, Sendable { case book, author }

  /// A row, in the store or as a context sees it. An author uses `text` (its name) and `books`;
  /// in the store, its books are the books whose `author` names it (the inverse), and in a
  /// context they are what the context loaded and changed since.
  struct Row: Hashable, Sendable {
    var text: String
    var pages = 0
    var author: Int?
    var books: Set<Int> = []
  }

  /// One registered object of a context.
  struct Object: Hashable {
    /// nil: a fault, which fires with its source's current row.
    var values: Row?
    /// A fault's row when it was made: what it keeps if its row is gone everywhere when it fires
    /// (the core's documented choice, FIDELITY.md, "Where it differs": it "keeps the values it last
    /// saw", where Apple's are "all set to nil or 0").
    var lastSeen: Row?
    /// The row as last read or saved, for rollback, conflicts and "changed" properties.
    var snapshot: Row?
    /// The store's version of the row when the snapshot was read.
    var version = 0
    var isInserted = false
    var isDeleted = false
    /// Set by any write, even of the value the property had (`SameValueWriteTests` cites
    /// Apple: "if you touch the object, we would mark it dirty"), and on an author whose books
    /// changed here.
    var isTouched = false

    var hasChanges: Bool { isInserted || isDeleted || isTouched || values != snapshot }
  }

  enum Parent: Hashable {
    case store
    case context(Int)
  }

  struct Context {
    var name: String
    var parent: Parent
    var mergesAutomatically: Bool
    var trumpsOnConflict = false
    /// `retainsRegisteredObjects`: keep unchanged objects registered after the step that loaded
    /// them.
    var retainsObjects = false
    var objects: [Int: Object] = [:]
  }

  var entities: [Int: Entity] = [:]
  var store: [Int: Row] = [:]
  var versions: [Int: Int] = [:]
  /// Books a batch request deleted while they named an author: the author's row in the store
  /// still lists them. Apple (Batch Programming Guide, "Implementing Batch Deletes"): "the
  /// changes enacted on the persistent store are not reflected in the objects that are currently
  /// in memory"; "any validation rules that are part of the data model are not enforced. [...]
  /// This naturally impacts validation rules on relationships." Of the rows that name a deleted
  /// one it says nothing; the core's choice is `BatchDeleteRequest`'s: they are "left dangling in
  /// the store and resolve to nothing".
  var dangling: [Int: Int] = [:]
  var contexts: [Context]
  /// While the checker reads a context, a fault fired with its row gone is deleted at once, but
  /// its delete rule waits for the end of that event, as the core's do (`endEvent`).
  var deferringRules = false
  var deferredRules: [(context: Int, number: Int)] = []
  /// Each context's last save that reached the store, for `mergeChanges(fromContextDidSave:)`.
  var lastSaves: [Int: Change] = [:]

  init(contexts: [Context]) {
    self.contexts = contexts
  }

  // MARK: - Reading

  /// The row `source` holds for object `number` now; nil when it has none.
  func row(_ number: Int, in source: Parent) -> Row? {
    switch source {
    case .store:
      guard var row = store[number] else { return nil }
      if entities[number] == .author {
        row.books = Set(store.filter { $0.value.author == number }.keys)
          .union(dangling.filter { $0.value == number }.keys)
      }
      return row
    case .context(let index): return row(number, seenBy: index)
    }
  }

  /// What context `index` reads for `number`: its own values, or its source's (a fault fires
  /// with the source's current row).
  func row(_ number: Int, seenBy index: Int) -> Row? {
    let context = contexts[index]
    guard let object = context.objects[number] else { return row(number, in: context.parent) }
    if object.isDeleted { return nil }
    return object.values ?? row(number, in: context.parent)
  }

  /// The objects a fetch of `entity` in context `index` returns: its source's, its insertions,
  /// less its deletions (fetches include pending changes).
  func visible(_ entity: Entity, in index: Int) -> Set<Int> {
    let context = contexts[index]
    var found = visible(entity, in: context.parent)
    for (number, object) in context.objects where entities[number] == entity {
      if object.isDeleted {
        found.remove(number)
      } else if object.isInserted {
        found.insert(number)
      }
    }
    return found
  }

  func visible(_ entity: Entity, in source: Parent) -> Set<Int> {
    switch source {
    case .store: return Set(store.keys.filter { entities[$0] == entity })
    case .context(let index): return visible(entity, in: index)
    }
  }

  /// Whether a relationship read in context `index` finds `number`: a registered object (even
  /// one pending deletion), or a row its parent or store still has. A relationship reads as the
  /// targets it finds (the core's `readRelationship`; Apple leaves a dangling target unsaid).
  func reaches(_ number: Int, in index: Int) -> Bool {
    contexts[index].objects[number] != nil || row(number, in: contexts[index].parent) != nil
  }

  /// An author's books as context `index` sees them.
  func books(of author: Int, in index: Int) -> Set<Int> {
    row(author, seenBy: index)?.books ?? []
  }

  // MARK: - Changing one context

  /// Registers `number` as a fault that will fire with its source's row, remembering that row.
  mutating func registerFault(_ number: Int, in index: Int) {
    contexts[index].objects[number] = Object(lastSeen: row(number, in: contexts[index].parent))
  }

  /// Registers `number` loaded (firing its fault), as any read or write does. A fault whose row
  /// is gone everywhere becomes a pending deletion, as Apple's `shouldDeleteInaccessibleFaults`
  /// (true by default) says: its "isDeleted property is set to true, which adds the object to
  /// the context's deletedObjects set"; its delete rule runs, as for any deletion.
  mutating func load(_ number: Int, in index: Int) {
    let parent = contexts[index].parent
    var object = contexts[index].objects[number] ?? Object()
    guard object.values == nil else { return }
    guard let row = row(number, in: parent) else {
      guard let lastSeen = object.lastSeen else { return }
      object.values = lastSeen
      object.snapshot = lastSeen
      contexts[index].objects[number] = object
      if deferringRules {
        contexts[index].objects[number]?.isDeleted = true
        deferredRules.append((index, number))
      } else {
        delete(number, in: index)
      }
      return
    }
    object.values = row
    object.snapshot = row
    object.version = versions[number] ?? 0
    contexts[index].objects[number] = object
  }

  mutating func insert(_ entity: Entity, _ row: Row, number: Int, in index: Int) {
    entities[number] = entity
    contexts[index].objects[number] = Object(values: row, isInserted: true)
  }

  mutating func edit(_ number: Int, in index: Int, _ change: (inout Row) -> Void) {
    load(number, in: index)
    if var values = contexts[index].objects[number]?.values {
      change(&values)
      contexts[index].objects[number]?.values = values
      contexts[index].objects[number]?.isTouched = true
    }
  }

  mutating func rollback(in index: Int) {
    contexts[index].objects = contexts[index].objects.compactMapValues { object in
      guard !object.isInserted else { return nil }
      var kept = object
      kept.isDeleted = false
      kept.isTouched = false
      kept.values = object.snapshot
      return kept
    }
  }

  mutating func reset(in index: Int) {
    contexts[index].objects = [:]
  }

  /// The end of a step: nothing outside the contexts holds an object any more, so each context
  /// that does not retain its objects lets go of every one without pending changes. Their rows
  /// stay where they are (the parent or the store); a later look-up makes a new object.
  mutating func forgetUnheld() {
    for index in contexts.indices where !contexts[index].retainsObjects {
      contexts[index].objects = contexts[index].objects.filter { $0.value.hasChanges }
    }
  }

  /// `refresh(_:mergeChanges:)`: false makes a fault; true reloads and re-applies local changes.
  mutating func refresh(_ number: Int, in index: Int, mergeChanges: Bool) {
    guard var object = contexts[index].objects[number], !object.isInserted else { return }
    guard let fresh = row(number, in: contexts[index].parent) else {
      // The row is gone: a pending deletion, as Apple's `shouldDeleteInaccessibleFaults` marks
      // such an object deleted, and its delete rule runs; it keeps its values, its last read
      // ones without `mergeChanges` (Tests/FIDELITY.md, "Where it differs", tells the rest). One
      // already pending stays as it is.
      guard !object.isDeleted else { return }
      if !mergeChanges, object.values != nil { object.values = object.snapshot }
      object.isTouched = false
      contexts[index].objects[number] = object
      delete(number, in: index)
      return
    }
    // A fault stays a fault, its row now the last it saw; without `mergeChanges` an object
    // with no pending deletion becomes one.
    guard let values = object.values, mergeChanges || object.isDeleted else {
      registerFault(number, in: index)
      return
    }
    // "Then the context applies local changes over the newly loaded values": a change applied
    // is a write, which marks the object updated even where it writes the value the row has now
    // (`SameValueWriteTests` cites Apple); an object with no changed value is clean again.
    object.isTouched = mergeChanges && values != object.snapshot
    object.values =
      mergeChanges ? Self.reapply(changesFrom: object.snapshot, to: values, onto: fresh) : fresh
    object.snapshot = fresh
    object.version = versions[number] ?? 0
    contexts[index].objects[number] = object
  }

  /// `onto` with each property that differs between `snapshot` and `values` taken from `values`.
  static func reapply(changesFrom snapshot: Row?, to values: Row, onto fresh: Row) -> Row {
    guard let snapshot else { return values }
    var result = fresh
    if values.text != snapshot.text { result.text = values.text }
    if values.pages != snapshot.pages { result.pages = values.pages }
    if values.author != snapshot.author { result.author = values.author }
    result.books.subtract(snapshot.books.subtracting(values.books))
    result.books.formUnion(values.books.subtracting(snapshot.books))
    return result
  }
}
