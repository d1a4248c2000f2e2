import Dispatch
import ManagedObjectCore
import WorkshopSupport

// Illegal: the wrong place (tasks, queues, the main actor, another context's perform).

extension AccessPattern {
  static let placePatterns: [AccessPattern] = [
    .illegal(
      "attribute get from a Task",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "in a Swift task")
    ) { f in
      let book = f.book
      await Task { _ = book.title }.value
    },
    .illegal(
      "attribute set from Task.detached",
      .init(.outsidePerform, .write, "Book", "pages", in: "A", at: "in a Swift task")
    ) { f in
      let book = f.book
      await Task.detached { book.pages = 2 }.value
    },
    .illegal(
      "attribute get from a plain DispatchQueue",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "outside any perform block")
    ) { f in
      let book = Smuggled(f.book)
      try await onPlainQueue {
        _ = book.value.title
      }
    },
    .illegal(
      "fetch from DispatchQueue.global()",
      .init(.outsidePerform, .fetch, "Author", in: "A", at: "outside any perform block")
    ) { f in
      let context = Smuggled(f.a)
      let count = try await offThePool(on: .global()) {
        try context.value.fetch(FetchRequest<Author>()).count
      }
      try check(count == 1, "fetched \(count) authors")
    },
    .illegalFromScratch(
      "background context's object read on the main actor",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "on the main queue")
    ) { name in
      try await mainActorReadsBackgroundObject(name)
    },
    .illegalFromScratch(
      "insert into a background context on the main actor",
      .init(.outsidePerform, .insert, "Book", in: "A", at: "on the main queue")
    ) { name in
      try await mainActorInsertsIntoBackgroundContext(name)
    },
    .illegalFromScratch(
      "viewContext object read from a detached task",
      .init(.outsidePerform, .read, "Book", "title", in: "viewContext", at: "in a Swift task")
    ) { name in
      let (container, book) = try await viewFixture(name)
      await Task.detached { _ = book.title }.value
      return container
    },
    .illegalFromScratch(
      "viewContext save from a detached task",
      .init(.outsidePerform, .save, nil, in: "viewContext", at: "in a Swift task")
    ) { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      try await Task.detached { try container.viewContext.save() }.value
      return container
    },
    .illegalFromScratch(
      "viewContext insert from DispatchQueue.global()",
      .init(.outsidePerform, .insert, "Author", in: "viewContext", at: "outside any perform block")
    ) { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      try await offThePool(on: .global()) {
        _ = container.viewContext.insertNewObject(of: Author.self)
      }
      return container
    },
    .illegalFromScratch(
      "viewContext object read inside a background context's perform",
      .init(.outsidePerform, .read, "Book", "title", in: "viewContext", at: "inside perform of 'B'")
    ) { name in
      let (container, book) = try await viewFixture(name)
      let b = container.newBackgroundContext()
      b.name = "B"
      let smuggled = Smuggled(book)
      await b.perform { _ = smuggled.value.title }
      return container
    },
    .illegal(
      "A's object read in B's fire-and-forget perform enqueued from A's perform",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "inside perform of 'B'")
    ) { f in
      await f.a.perform {
        enqueue(f.b) { _ = f.book.title }
      }
      // B's queue is serial: this runs after the block enqueued above.
      await f.b.perform(schedule: .enqueued) {}
    },
    .illegal(
      "A's object written in an awaited perform of B",
      .init(.outsidePerform, .write, "Book", "pages", in: "A", at: "inside perform of 'B'")
    ) { f in
      await f.b.perform { f.book.pages = 3 }
    },
    .illegal(
      "A's object read in B's performAndWait started outside A",
      .init(.outsidePerform, .read, "Book", "title", in: "A", at: "inside perform of 'B'")
    ) { f in
      try await onPlainQueue {
        f.b.performAndWait { _ = f.book.title }
      }
    },
    .illegalFromScratch(
      "object of performBackgroundTask used after the block",
      .init(.outsidePerform, .read, "Book", "title", in: "worker")
    ) { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let book = try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Smuggled<Book>, any Error>) in
        container.performBackgroundTask { context in
          context.name = "worker"
          let book = Book(context: context)
          book.title = "Dune"
          do {
            try context.save()
            continuation.resume(returning: Smuggled(book))
          } catch {
            continuation.resume(throwing: error)
          }
        }
      }
      _ = book.value.title
      return container
    },
  ]
}
