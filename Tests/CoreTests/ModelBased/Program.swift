/// The contexts a program runs over, on one store.
enum Topology: Hashable, Codable, Sendable, CustomStringConvertible {
  /// Two background contexts on the store; the second merges the first's saves on its own.
  case siblings(mergesAutomatically: Bool)
  /// A background context on the store and its private-queue child.
  case parentAndChild(mergesAutomatically: Bool)
  /// `ContextStack`: ctx0 is `rootSavingContext`, ctx1 `defaultContext` (main queue, merges its
  /// parent's saves); the stack's `save { local in … }` runs in a new child of the root.
  case stack
  /// Three contexts: ctx0 on the store, ctx1 its child, ctx2 ctx0's sibling on the store; ctx1
  /// and ctx2 merge on their own, or neither does.
  case family(mergesAutomatically: Bool)

  var model: ReferenceModel {
    switch self {
    case .siblings(let merges):
      ReferenceModel(contexts: [
        .init(name: "ctx0", parent: .store, mergesAutomatically: false),
        .init(name: "ctx1", parent: .store, mergesAutomatically: merges),
      ])
    case .parentAndChild(let merges):
      ReferenceModel(contexts: [
        .init(name: "ctx0", parent: .store, mergesAutomatically: false),
        .init(name: "ctx1", parent: .context(0), mergesAutomatically: merges),
      ])
    case .stack:
      ReferenceModel(contexts: [
        .init(name: "ctx0", parent: .store, mergesAutomatically: false, trumpsOnConflict: true),
        .init(name: "ctx1", parent: .context(0), mergesAutomatically: true),
      ])
    case .family(let merges):
      ReferenceModel(contexts: [
        .init(name: "ctx0", parent: .store, mergesAutomatically: false),
        .init(name: "ctx1", parent: .context(0), mergesAutomatically: merges),
        .init(name: "ctx2", parent: .store, mergesAutomatically: merges),
      ])
    }
  }

  var description: String {
    switch self {
    case .siblings(let merges):
      "let ctx0 = container.newBackgroundContext(), ctx1 = container.newBackgroundContext()"
        + "; ctx1.automaticallyMergesChangesFromParent = \(merges)"
        + "; let allContexts = [ctx0, ctx1]"
    case .parentAndChild(let merges):
      "let ctx0 = container.newBackgroundContext(), ctx1 = ctx0.newChildContext()"
        + "; ctx1.automaticallyMergesChangesFromParent = \(merges)"
        + "; let allContexts = [ctx0, ctx1]"
    case .stack:
      "let stack = ContextStack(container: container)"
        + "; let ctx0 = stack.rootSavingContext, ctx1 = stack.defaultContext"
        + "; let allContexts = [ctx0, ctx1]"
    case .family(let merges):
      "let ctx0 = container.newBackgroundContext(), ctx1 = ctx0.newChildContext()"
        + ", ctx2 = container.newBackgroundContext()"
        + "; ctx1.automaticallyMergesChangesFromParent = \(merges)"
        + "; ctx2.automaticallyMergesChangesFromParent = \(merges)"
        + "; let allContexts = [ctx0, ctx1, ctx2]"
    }
  }
}

/// A random program: its topology and its steps. The seed made it; shrinking keeps the seed and
/// drops steps.
struct Program: Hashable, Codable, Sendable, CustomStringConvertible {
  var seed: UInt64
  var topology: Topology
  /// Whether every context sets `retainsRegisteredObjects` (false, Core Data's default: a context
  /// keeps only its changed objects once a step's block has returned).
  var retainsRegisteredObjects = false
  var operations: [Operation]

  /// The reference model of the program's contexts, before its first step.
  var model: ReferenceModel {
    var model = topology.model
    for index in model.contexts.indices {
      model.contexts[index].retainsObjects = retainsRegisteredObjects
    }
    return model
  }

  /// The program as Swift-like lines a maintainer can read and paste. `bookN` and `authorN` stand
  /// for `try ctx.existingObject(with: <#N's ID>, as: Book.self)` in the block's context.
  var description: String {
    let retaining =
      retainsRegisteredObjects
      ? ["for context in allContexts { context.retainsRegisteredObjects = true }"] : []
    return (["// seed \(seed)", topology.description] + retaining + operations.map(\.description))
      .joined(separator: "\n")
  }
}

extension Operation: CustomStringConvertible {
  var description: String {
    switch self {
    case .insertBook(let c, let n, let title, let pages):
      return inside(
        c,
        "let book\(n) = Book(context: ctx\(c)); book\(n).title = \"\(title)\"; "
          + "book\(n).pages = \(pages)")
    case .insertAuthor(let c, let n, let name):
      return inside(c, "let author\(n) = Author(context: ctx\(c)); author\(n).name = \"\(name)\"")
    case .setTitle(let c, let b, let title): return inside(c, "book\(b).title = \"\(title)\"")
    case .setPages(let c, let b, let pages): return inside(c, "book\(b).pages = \(pages)")
    case .setAuthor(let c, let b, let a):
      return inside(c, "book\(b).author = \(a.map { "author\($0)" } ?? "nil")")
    case .addBook(let c, let a, let b): return inside(c, "author\(a).books.insert(book\(b))")
    case .removeBook(let c, let a, let b): return inside(c, "author\(a).books.remove(book\(b))")
    case .delete(let c, let o): return inside(c, "ctx\(c).delete(object\(o))")
    case .read(let c, let o): return inside(c, "_ = object\(o).values  // fires a fault")
    case .fetchBooks(let c):
      return inside(c, "for book in try ctx\(c).fetch(FetchRequest<Book>()) { _ = book.title }")
    case .save(let c): return inside(c, "try ctx\(c).save()")
    case .rollback(let c): return inside(c, "ctx\(c).rollback()")
    case .reset(let c): return inside(c, "ctx\(c).reset()")
    case .refresh(let c, let o, let merge):
      return inside(c, "ctx\(c).refresh(object\(o), mergeChanges: \(merge))")
    case .mergeLastSave(let from, let into):
      return inside(into, "ctx\(into).mergeChanges(fromContextDidSave: lastSave(of: ctx\(from)))")
    case .stackSaveInsert(let n, let title):
      return "try await stack.save { local in let book\(n) = Book(context: local); "
        + "book\(n).title = \"\(title)\" }"
    case .stackSaveEdit(let b, let pages):
      return "try await stack.save { local in book\(b).pages = \(pages) }"
    case .batchInsert(let numbers, let merge):
      return batch(
        "BatchInsertRequest<Book>(objects: ["
          + numbers.map { "[\"title\": \"batch \($0)\"]" }.joined(separator: ", ") + "])", merge)
        + "  // inserts \(numbers.map { "#\($0)" }.joined(separator: ", "))"
    case .batchUpdate(let limit, let pages, let merge):
      return batch(
        "BatchUpdateRequest<Book>(predicate: #Predicate { $0.pages < \(limit) }, "
          + "propertiesToUpdate: [\"pages\": \(pages)])", merge)
    case .batchDelete(let limit, let merge):
      return batch(
        "BatchDeleteRequest(fetchRequest: FetchRequest<Book>(predicate: "
          + "#Predicate { $0.pages < \(limit) }))", merge)
    }
  }

  private func inside(_ context: Int, _ body: String) -> String {
    "try await ctx\(context).perform { \(body) }"
  }

  private func batch(_ request: String, _ merge: Bool) -> String {
    (merge ? "let result = " : "") + "try await ctx0.perform { try ctx0.execute(\(request)) }"
      + (merge
        ? "; ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes!, "
          + "into: allContexts)" : "")
  }
}
