import Foundation
import ManagedObjectCore
import Synchronization

/// The program's contexts in the real core, and the map between the program's object numbers and
/// the core's IDs. Every step runs inside its context's `perform` (legal code only); objects are
/// looked up by ID in every block, never kept across blocks. Inserts in ctx0 and ctx1 take their
/// permanent IDs at once (`obtainPermanentIDs(for:)`), so that one number has one ID in every
/// context; the stack's saves keep temporary IDs, as MagicalRecord's callers' do.
final class CoreWorld {
  let container: PersistentContainer
  let stack: ContextStack?
  let contexts: [ManagedObjectContext]
  private(set) var ids: [Int: ManagedObjectID] = [:]
  private(set) var numbers: [ManagedObjectID: Int] = [:]
  /// Each context's last save with changes, by context name, as its observer saw it.
  private let lastSaves = LastSaves()

  /// Written by the save observer on the saving context's queue.
  private final class LastSaves: Sendable {
    let byName = Mutex<[String: ContextDidSave]>([:])
  }

  init(_ topology: Topology, retainsRegisteredObjects: Bool = false) {
    container = PersistentContainer(name: "model-based", concurrencyChecking: .record)
    switch topology {
    case .siblings(let merges):
      let first = container.newBackgroundContext()
      let second = container.newBackgroundContext()
      second.automaticallyMergesChangesFromParent = merges
      (stack, contexts) = (nil, [first, second])
    case .parentAndChild(let merges):
      let parent = container.newBackgroundContext()
      let child = parent.newChildContext()
      child.automaticallyMergesChangesFromParent = merges
      (stack, contexts) = (nil, [parent, child])
    case .stack:
      let stack = ContextStack(container: container)
      (self.stack, contexts) = (stack, [stack.rootSavingContext, stack.defaultContext])
    case .family(let merges):
      let parent = container.newBackgroundContext()
      let child = parent.newChildContext()
      let sibling = container.newBackgroundContext()
      child.automaticallyMergesChangesFromParent = merges
      sibling.automaticallyMergesChangesFromParent = merges
      (stack, contexts) = (nil, [parent, child, sibling])
    }
    for (index, context) in contexts.enumerated() {
      context.name = "ctx\(index)"
      context.retainsRegisteredObjects = retainsRegisteredObjects
    }
    container.addSaveObserver { [lastSaves] note in
      guard let name = note.contextName,
        !(note.insertedObjectIDs.isEmpty && note.updatedObjectIDs.isEmpty
          && note.deletedObjectIDs.isEmpty)
      else { return }
      lastSaves.byName.withLock { $0[name] = note }
    }
  }

  func number(of id: ManagedObjectID) -> Int? { numbers[id] }

  private func remember(_ id: ManagedObjectID, as number: Int) {
    ids[number] = id
    numbers[id] = number
  }

  /// Runs one step; returns the error a save or a batch threw, if any.
  func run(_ operation: Operation) async -> String? {
    do {
      try await perform(operation)
      return nil
    } catch {
      return "\(error)"
    }
  }

  private func perform(_ operation: Operation) async throws {
    let ids = self.ids
    switch operation {
    case .insertBook(let c, let n, let title, let pages):
      let context = contexts[c]
      remember(
        await context.perform {
          let book = Book(context: context)
          book.title = title
          book.pages = pages
          context.obtainPermanentIDs(for: [book])
          return book.objectID
        }, as: n)
    case .insertAuthor(let c, let n, let name):
      let context = contexts[c]
      remember(
        await context.perform {
          let author = Author(context: context)
          author.name = name
          context.obtainPermanentIDs(for: [author])
          return author.objectID
        }, as: n)
    case .setTitle(let c, let b, let title):
      try await inContext(c) { try $0.existingObject(with: ids[b]!, as: Book.self).title = title }
    case .setPages(let c, let b, let pages):
      try await inContext(c) { try $0.existingObject(with: ids[b]!, as: Book.self).pages = pages }
    case .setAuthor(let c, let b, let a):
      try await inContext(c) { context in
        let book = try context.existingObject(with: ids[b]!, as: Book.self)
        book.author = try a.map { try context.existingObject(with: ids[$0]!, as: Author.self) }
      }
    case .addBook(let c, let a, let b):
      try await inContext(c) { context in
        let author = try context.existingObject(with: ids[a]!, as: Author.self)
        author.books.insert(try context.existingObject(with: ids[b]!, as: Book.self))
      }
    case .removeBook(let c, let a, let b):
      try await inContext(c) { context in
        let author = try context.existingObject(with: ids[a]!, as: Author.self)
        author.books.remove(try context.existingObject(with: ids[b]!, as: Book.self))
      }
    case .delete(let c, let o):
      try await inContext(c) { $0.delete(try $0.existingObject(with: ids[o]!)) }
    case .read(let c, let o):
      try await inContext(c) { context in
        switch try context.existingObject(with: ids[o]!) {
        case let book as Book: _ = (book.title, book.pages, book.author)
        case let author as Author: _ = author.name
        default: break
        }
      }
    case .fetchBooks(let c):
      try await inContext(c) { context in
        for book in try context.fetch(FetchRequest<Book>()) { _ = (book.title, book.pages) }
      }
    case .save(let c): try await inContext(c) { try $0.save() }
    case .rollback(let c): try await inContext(c) { $0.rollback() }
    case .reset(let c): try await inContext(c) { $0.reset() }
    case .refresh(let c, let o, let merge):
      try await inContext(c) {
        $0.refresh(try $0.existingObject(with: ids[o]!), mergeChanges: merge)
      }
    case .mergeLastSave(let from, let into):
      let note = lastSaves.byName.withLock { $0["ctx\(from)"] }!
      try await inContext(into) { $0.mergeChanges(fromContextDidSave: note) }
    case .stackSaveInsert(let n, let title):
      // Temporary IDs here, as the stack pattern has them: the new book's permanent ID
      // is the one the root's store does not know yet.
      try await stack!.save { local in
        let book = Book(context: local)
        book.title = title
      }
      let root = contexts[0]
      let saved = try await root.perform { try root.fetchObjectIDs(FetchRequest<Book>()) }
      for id in saved where numbers[id] == nil { remember(id, as: n) }
    case .stackSaveEdit(let b, let pages):
      try await stack!.save { local in
        try local.existingObject(with: ids[b]!, as: Book.self).pages = pages
      }
    case .batchInsert(let numbers, let merge):
      let context = contexts[0]
      let result = try await context.perform {
        var request = BatchInsertRequest<Book>(objects: numbers.map { ["title": "batch \($0)"] })
        request.resultType = .objectIDs
        return try context.execute(request)
      }
      for (number, id) in zip(numbers, result.objectIDs ?? []) { remember(id, as: number) }
      if merge, let changes = result.changes { await mergeEverywhere(changes) }
    case .batchUpdate(let limit, let pages, let merge):
      let context = contexts[0]
      let result = try await context.perform {
        var request = BatchUpdateRequest<Book>(
          predicate: #Predicate { $0.pages < limit }, propertiesToUpdate: ["pages": pages])
        request.resultType = .objectIDs
        return try context.execute(request)
      }
      if merge, let changes = result.changes { await mergeEverywhere(changes) }
    case .batchDelete(let limit, let merge):
      let context = contexts[0]
      let result = try await context.perform {
        var request = BatchDeleteRequest(
          fetchRequest: FetchRequest<Book>(predicate: #Predicate { $0.pages < limit }))
        request.resultType = .objectIDs
        return try context.execute(request)
      }
      if merge, let changes = result.changes { await mergeEverywhere(changes) }
    }
  }

  private func inContext(
    _ index: Int, _ body: @escaping @Sendable (ManagedObjectContext) throws -> Void
  ) async throws {
    let context = contexts[index]
    try await context.perform { try body(context) }
  }

  /// Apple's way to bring a batch request's changes into contexts (`NSBatchDeleteRequest`: "you
  /// must remove any deleted objects from memory after the request finishes").
  private func mergeEverywhere(_ changes: ContextDidSave) async {
    ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: contexts)
  }
}
