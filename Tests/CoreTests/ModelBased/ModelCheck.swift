import ManagedObjectCore

/// What one context of the core holds, read inside its `perform` without firing any fault.
struct ContextSnapshot: Sendable {
  enum Values: Sendable, Equatable {
    case book(title: String, pages: Int, author: ManagedObjectID?)
    case author(name: String, books: Set<ManagedObjectID>)
  }

  /// `registeredObjects` before the snapshot reads anything.
  var registered: Set<ManagedObjectID> = []
  var books: Set<ManagedObjectID> = []
  var authors: Set<ManagedObjectID> = []
  var inserted: Set<ManagedObjectID> = []
  var deleted: Set<ManagedObjectID> = []
  /// The registered objects that are neither faults nor deleted, and what they hold.
  var loaded: [ManagedObjectID: Values] = [:]

  static func read(_ context: ManagedObjectContext) async throws -> ContextSnapshot {
    try await context.perform {
      var snapshot = ContextSnapshot()
      snapshot.registered = Set(context.registeredObjects.map(\.objectID))
      snapshot.books = Set(try context.fetchObjectIDs(FetchRequest<Book>()))
      snapshot.authors = Set(try context.fetchObjectIDs(FetchRequest<Author>()))
      // Reading a relationship registers its targets loaded, or fires them if they are faults
      // (the core's choice; Apple leaves the moment a fault fires open): read until no new
      // object loads, so that the model, told of every loaded object, loads them all now too.
      var read: Set<ManagedObjectID> = []
      while true {
        let unread = context.registeredObjects.filter {
          !$0.isFault && !$0.isDeleted && !read.contains($0.objectID)
        }
        if unread.isEmpty { break }
        for object in unread {
          read.insert(object.objectID)
          switch object {
          case let book as Book:
            snapshot.loaded[book.objectID] = .book(
              title: book.title, pages: book.pages, author: book.author?.objectID)
          case let author as Author:
            snapshot.loaded[author.objectID] = .author(
              name: author.name, books: Set(author.books.map(\.objectID)))
          default: break
          }
        }
      }
      // After the reads: a fault they fired whose row is gone is a pending deletion now.
      snapshot.inserted = Set(context.insertedObjects.map(\.objectID))
      snapshot.deleted = Set(context.deletedObjects.map(\.objectID))
      return snapshot
    }
  }
}

extension CoreWorld {
  /// Compares every context with the model; nil when they agree. Where the core has loaded an
  /// object the model holds as a fault, the model loads it too (Apple leaves the moment open;
  /// the values must then be the source's current row). Also fails on any violation reported.
  func check(against model: inout ReferenceModel) async -> String? {
    let violations = container.removeAllViolations()
    if !violations.isEmpty {
      return "violations reported for legal code:\n"
        + violations.map { "  \($0)" }.joined(separator: "\n")
    }
    for (index, context) in contexts.enumerated() {
      let snapshot: ContextSnapshot
      do {
        snapshot = try await ContextSnapshot.read(context)
      } catch {
        return "ctx\(index): a fetch threw \(error)"
      }
      if let problem = compare(snapshot, index, &model) { return "ctx\(index): \(problem)" }
    }
    return nil
  }

  private func names(_ ids: Set<ManagedObjectID>) -> String {
    ids.map { id in numbers[id].map { "#\($0)" } ?? "\(id)" }.sorted().joined(separator: ", ")
  }

  private func names(_ numbers: Set<Int>) -> String {
    numbers.sorted().map { "#\($0)" }.joined(separator: ", ")
  }

  private func compare(
    _ snapshot: ContextSnapshot, _ index: Int, _ model: inout ReferenceModel
  ) -> String? {
    func ids(_ numbers: Set<Int>) -> Set<ManagedObjectID> {
      Set(numbers.compactMap { self.ids[$0] })
    }
    let expectedBooks = model.visible(.book, in: index)
    if snapshot.books != ids(expectedBooks) {
      return
        "a fetch of Book returns [\(names(snapshot.books))], the model [\(names(expectedBooks))]"
    }
    let expectedAuthors = model.visible(.author, in: index)
    if snapshot.authors != ids(expectedAuthors) {
      return "a fetch of Author returns [\(names(snapshot.authors))], "
        + "the model [\(names(expectedAuthors))]"
    }
    // A context that keeps only its changed objects has exactly the model's: the programs hold
    // none across steps (`forgetUnheld`). One that retains them all may have registered more
    // than the model tracks (a relationship read registers its target), so it is not compared.
    if !model.contexts[index].retainsObjects {
      let expected = Set(model.contexts[index].objects.keys)
      if snapshot.registered != ids(expected) {
        return "registeredObjects [\(names(snapshot.registered))], the model [\(names(expected))]"
      }
    }
    // What the reads loaded, the model loads now (a deleted one: a fault fired with its row gone,
    // whose delete rule runs when the reading block ends, after the snapshot).
    model.deferringRules = true
    defer {
      model.deferringRules = false
      model.endEvent(in: index)
      // The snapshot's block has returned: what it loaded and nothing changed is let go.
      model.forgetUnheld()
    }
    for id in Set(snapshot.loaded.keys).union(snapshot.deleted) {
      if let number = numbers[id] { model.load(number, in: index) }
    }
    let change = model.pendingChange(in: index)
    if snapshot.inserted != ids(change.inserted) {
      return "insertedObjects [\(names(snapshot.inserted))], the model [\(names(change.inserted))]"
    }
    if snapshot.deleted != ids(change.deleted) {
      return "deletedObjects [\(names(snapshot.deleted))], the model [\(names(change.deleted))]"
    }
    for (id, values) in snapshot.loaded.sorted(by: { "\($0.key)" < "\($1.key)" }) {
      guard let number = numbers[id] else { return "an object the program never made: \(id)" }
      guard let row = model.row(number, seenBy: index) else {
        return "#\(number) is loaded and holds \(values); the model has no row for it"
      }
      let expected: ContextSnapshot.Values =
        switch model.entities[number]! {
        case .book:
          .book(
            title: row.text, pages: row.pages,
            author: row.author.flatMap { model.reaches($0, in: index) ? self.ids[$0]! : nil })
        case .author:
          .author(
            name: row.text,
            books: ids(model.books(of: number, in: index).filter { model.reaches($0, in: index) }))
        }
      if values != expected {
        return "#\(number) holds \(describe(values)), the model \(describe(expected))"
      }
    }
    return nil
  }

  private func describe(_ values: ContextSnapshot.Values) -> String {
    switch values {
    case .book(let title, let pages, let author):
      "Book(title: \"\(title)\", pages: \(pages), author: \(author.map { names([$0]) } ?? "nil"))"
    case .author(let name, let books): "Author(name: \"\(name)\", books: [\(names(books))])"
    }
  }
}
