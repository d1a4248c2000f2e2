/// One legal step of a random program. Objects are named by number (`#3`); an insert says which
/// number it makes, so that a program keeps its meaning when the shrinker drops steps.
enum Operation: Hashable, Codable, Sendable {
  case insertBook(context: Int, number: Int, title: String, pages: Int)
  case insertAuthor(context: Int, number: Int, name: String)
  case setTitle(context: Int, book: Int, title: String)
  case setPages(context: Int, book: Int, pages: Int)
  /// The to-one side: `book.author = author`.
  case setAuthor(context: Int, book: Int, author: Int?)
  /// The to-many side: `author.books.insert(book)`.
  case addBook(context: Int, author: Int, book: Int)
  /// The to-many side: `author.books.remove(book)`.
  case removeBook(context: Int, author: Int, book: Int)
  case delete(context: Int, object: Int)
  /// Reads the object, which fires it if it is a fault.
  case read(context: Int, object: Int)
  /// Fetches every book and reads each one's values (issue 24's crash was a fetch, then a read).
  case fetchBooks(context: Int)
  case save(context: Int)
  case rollback(context: Int)
  case reset(context: Int)
  case refresh(context: Int, object: Int, mergeChanges: Bool)
  /// `into.mergeChanges(fromContextDidSave:)` with `from`'s last save that reached the store.
  case mergeLastSave(from: Int, into: Int)
  /// `ContextStack.save { local in … }` inserting a book.
  case stackSaveInsert(number: Int, title: String)
  /// `ContextStack.save { local in … }` setting a saved book's pages.
  case stackSaveEdit(book: Int, pages: Int)
  /// Batch requests on context 0, their IDs merged into every context when `merge`.
  case batchInsert(numbers: [Int], merge: Bool)
  case batchUpdate(pagesBelow: Int, to: Int, merge: Bool)
  case batchDelete(pagesBelow: Int, merge: Bool)
}

extension ReferenceModel {
  /// Whether `operation` is legal and unambiguous now; the shrinker's programs skip those that
  /// are not.
  func allows(_ operation: Operation, in topology: Topology) -> Bool {
    func sees(_ number: Int, _ entity: Entity, in context: Int) -> Bool {
      entities[number] == entity && visible(entity, in: context).contains(number)
        && row(number, seenBy: context) != nil
    }
    func fresh(_ number: Int) -> Bool { entities[number] == nil }
    switch operation {
    case .insertBook(_, let number, _, _), .insertAuthor(_, let number, _),
      .stackSaveInsert(let number, _):
      return fresh(number)
    case .setTitle(let context, let book, _), .setPages(let context, let book, _):
      return sees(book, .book, in: context)
    case .setAuthor(let context, let book, let author):
      return sees(book, .book, in: context)
        && (author.map { sees($0, .author, in: context) } ?? true)
    case .addBook(let context, let author, let book):
      return sees(book, .book, in: context) && sees(author, .author, in: context)
    case .removeBook(let context, let author, let book):
      return sees(book, .book, in: context) && row(book, seenBy: context)?.author == author
        && sees(author, .author, in: context)
    case .delete(let context, let object), .read(let context, let object):
      return entities[object].map { sees(object, $0, in: context) } ?? false
    case .refresh(let context, let object, let mergeChanges):
      guard let registered = contexts[context].objects[object] else { return false }
      // Apple does not say what a refresh that drops a relationship change does to the
      // inverse's in-memory side: only attribute changes are dropped.
      let keepsRelationships =
        mergeChanges
        || registered.values?.author == registered.snapshot?.author
          && registered.values?.books == registered.snapshot?.books
      return !registered.isInserted && !registered.isDeleted && keepsRelationships
        && row(object, in: contexts[context].parent) != nil
    case .save(let context):
      // A child's edit to an object its parent has deleted but not saved: Apple does not say
      // what the parent makes of it, and the core lands the edit on the deleted object, whose
      // relationships may then name it after its delete rule ran. Not asked.
      guard case .context(let parent) = contexts[context].parent else { return true }
      var model = self
      let updated = pendingChange(in: context).updated
      for number in updated { model.load(number, in: parent) }
      return !updated.contains { model.contexts[parent].objects[$0]?.isDeleted == true }
    case .rollback, .reset, .fetchBooks: return true
    case .mergeLastSave(let from, let into):
      return from != into && lastSaves[from] != nil && contexts[into].parent == .store
    case .stackSaveEdit(let book, _):
      // The stack's local context is a new child of the root: it finds the book only where the
      // root does (one the root deleted is `objectDeleted`, as `existingObject(with:)` throws).
      return topology == .stack && entities[book] == .book && store[book] != nil
        && row(book, in: .context(0)) != nil
    case .batchInsert(let numbers, _): return numbers.allSatisfy(fresh)
    case .batchUpdate, .batchDelete: return true
    }
  }

  /// Applies `operation`, then forgets what no context keeps once the step's block has returned
  /// (`forgetUnheld`); returns false when a save is expected to fail with a conflict.
  mutating func apply(_ operation: Operation) -> Bool {
    defer { forgetUnheld() }
    return applyStep(operation)
  }

  private mutating func applyStep(_ operation: Operation) -> Bool {
    switch operation {
    case .insertBook(let context, let number, let title, let pages):
      insert(.book, Row(text: title, pages: pages), number: number, in: context)
    case .insertAuthor(let context, let number, let name):
      insert(.author, Row(text: name), number: number, in: context)
    case .setTitle(let context, let book, let title):
      edit(book, in: context) { $0.text = title }
    case .setPages(let context, let book, let pages):
      edit(book, in: context) { $0.pages = pages }
    case .setAuthor(let context, let book, let author):
      setAuthor(author, of: book, in: context)
    case .addBook(let context, let author, let book):
      addBook(book, to: author, in: context)
    case .removeBook(let context, let author, let book):
      removeBook(book, from: author, in: context)
    case .delete(let context, let object): delete(object, in: context)
    case .read(let context, let object): load(object, in: context)
    case .fetchBooks(let context):
      for book in visible(.book, in: context) { load(book, in: context) }
    case .save(let context): return save(context) != .conflict
    case .rollback(let context): rollback(in: context)
    case .reset(let context): reset(in: context)
    case .refresh(let context, let object, let mergeChanges):
      refresh(object, in: context, mergeChanges: mergeChanges)
    case .mergeLastSave(let from, let into): merge(lastSaves[from]!, into: into)
    case .stackSaveInsert(let number, let title):
      return inLocalContext { model, local in
        model.insert(.book, Row(text: title), number: number, in: local)
      }
    case .stackSaveEdit(let book, let pages):
      return inLocalContext { model, local in model.edit(book, in: local) { $0.pages = pages } }
    case .batchInsert(let numbers, let merge):
      let change = batchInsert(numbers.map { Row(text: "batch \($0)") }, numbers: numbers)
      if merge { mergeEverywhere(change) }
    case .batchUpdate(let limit, let pages, let merge):
      let change = batchUpdate(pagesBelow: limit, to: pages)
      if merge { mergeEverywhere(change) }
    case .batchDelete(let limit, let merge):
      let change = batchDelete(pagesBelow: limit)
      if merge { mergeEverywhere(change) }
    }
    return true
  }

  /// The stack's `save { local in … }`: a new child of the root (context 0), saved, then the
  /// root saved to the store.
  private mutating func inLocalContext(_ body: (inout ReferenceModel, Int) -> Void) -> Bool {
    contexts.append(Context(name: "localContext", parent: .context(0), mergesAutomatically: false))
    let local = contexts.count - 1
    body(&self, local)
    _ = save(local)
    contexts.removeLast()
    return save(0) != .conflict
  }

  private mutating func mergeEverywhere(_ change: Change) {
    for context in contexts.indices { merge(change, into: context) }
  }
}
