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
/// - Conflicts, as the core's README states them: `.error` fails a save whose updated or deleted
///   row changed since it was read (optimistic locking); `.mergeByPropertyObjectTrump` keeps the
///   context's changed properties over the store's. A set marks the object updated even when it
///   writes the same value (`SameValueWriteTests` cites Apple).
///
/// Where Apple leaves a choice open (when a fetched object is loaded rather than a fault), the
/// checker follows the core's choice (see `ModelCheck`); where Apple says nothing (an edit to a row
/// deleted elsewhere), the generator does not ask, or the model takes the core's documented choice
/// and says so.
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
    var objects: [Int: Object] = [:]
  }

  var entities: [Int: Entity] = [:]
  var store: [Int: Row] = [:]
  var versions: [Int: Int] = [:]
  var contexts: [Context]
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

  /// An author's books as context `index` sees them.
  func books(of author: Int, in index: Int) -> Set<Int> {
    row(author, seenBy: index)?.books ?? []
  }

  // MARK: - Changing one context

  /// Registers `number` loaded (firing its fault), as any read or write does.
  mutating func load(_ number: Int, in index: Int) {
    let parent = contexts[index].parent
    var object = contexts[index].objects[number] ?? Object()
    guard object.values == nil, let row = row(number, in: parent) else {
      contexts[index].objects[number] = object
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

  /// Sets a book's author; the inverse (both authors' books) follows.
  mutating func setAuthor(_ author: Int?, of book: Int, in index: Int) {
    load(book, in: index)
    guard let values = contexts[index].objects[book]?.values else { return }
    contexts[index].objects[book]?.isTouched = true
    let old = values.author
    guard old != author else { return }
    contexts[index].objects[book]?.values?.author = author
    if let old { changeBooks(of: old, in: index) { $0.remove(book) } }
    if let author { changeBooks(of: author, in: index) { $0.insert(book) } }
  }

  private mutating func changeBooks(
    of author: Int, in index: Int, _ change: (inout Set<Int>) -> Void
  ) {
    load(author, in: index)
    guard var values = contexts[index].objects[author]?.values else { return }
    change(&values.books)
    contexts[index].objects[author]?.values = values
    contexts[index].objects[author]?.isTouched = true
  }

  mutating func edit(_ number: Int, in index: Int, _ change: (inout Row) -> Void) {
    load(number, in: index)
    if var values = contexts[index].objects[number]?.values {
      change(&values)
      contexts[index].objects[number]?.values = values
      contexts[index].objects[number]?.isTouched = true
    }
  }

  /// Deletes `number`: an unsaved insert is simply removed; otherwise a pending deletion, and the
  /// delete rule (nullify) clears the books that named a deleted author.
  mutating func delete(_ number: Int, in index: Int) {
    if entities[number] == .author {
      for book in books(of: number, in: index) where row(book, seenBy: index) != nil {
        setAuthor(nil, of: book, in: index)
      }
    } else if let author = row(number, seenBy: index)?.author {
      changeBooks(of: author, in: index) { $0.remove(number) }
    }
    load(number, in: index)
    if contexts[index].objects[number]?.isInserted == true {
      contexts[index].objects[number] = nil
    } else {
      contexts[index].objects[number]?.isDeleted = true
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

  /// `refresh(_:mergeChanges:)`: false makes a fault; true reloads and re-applies local changes.
  mutating func refresh(_ number: Int, in index: Int, mergeChanges: Bool) {
    guard var object = contexts[index].objects[number] else { return }
    guard mergeChanges else {
      contexts[index].objects[number] = Object()
      return
    }
    guard let fresh = row(number, in: contexts[index].parent) else {
      // The row is gone: a pending deletion that keeps its values, as Apple's
      // `shouldDeleteInaccessibleFaults` marks such an object deleted (the core's README,
      // "Where it differs", tells the rest).
      contexts[index].objects[number]?.isDeleted = true
      return
    }
    guard let values = object.values else { return }
    object.values = Self.reapply(changesFrom: object.snapshot, to: values, onto: fresh)
    object.snapshot = fresh
    object.version = versions[number] ?? 0
    // A write of the value the row has now leaves no change to re-apply.
    object.isTouched = object.isTouched && object.values != fresh
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
