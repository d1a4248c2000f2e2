import ManagedObjectCore
import WorkshopSupport

// Illegal: invalidated objects.

extension AccessPattern {
  static let invalidatedPatterns: [AccessPattern] = [
    .illegal(
      "attribute get after reset",
      .init(
        .invalidatedObject, .read, "Book", "title", in: "A",
        at: "after its context was reset", "inside perform of 'A'")
    ) { f in
      await f.a.perform {
        f.a.reset()
        _ = f.book.title
      }
    },
    .illegal(
      "attribute set after its deletion was saved",
      .init(
        .invalidatedObject, .write, "Book", "pages", in: "A", at: "after its deletion was saved")
    ) { f in
      try await f.a.perform {
        f.a.delete(f.book)
        try f.a.save()
        f.book.pages = 1
      }
    },
    .illegal(
      "relating to an object invalidated by reset",
      .init(
        .invalidatedObject, .write, "Book", "author", in: "A", at: "after its context was reset")
    ) { f in
      await f.a.perform {
        f.a.reset()
        let fresh = Book(context: f.a)
        fresh.title = "Children of Dune"
        fresh.author = f.author
      }
    },
    .illegal(
      "deleting an object invalidated by reset",
      .init(.invalidatedObject, .delete, "Book", in: "A", at: "after its context was reset")
    ) { f in
      await f.a.perform {
        f.a.reset()
        f.a.delete(f.book)
      }
    },
    .illegal(
      "refreshing an object whose deletion was saved",
      .init(.invalidatedObject, .refresh, "Book", in: "A", at: "after its deletion was saved")
    ) { f in
      try await f.a.perform {
        f.a.delete(f.book)
        try f.a.save()
        f.a.refresh(f.book, mergeChanges: false)
      }
    },
  ]
}
