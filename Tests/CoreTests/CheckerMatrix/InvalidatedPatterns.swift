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
    // A merge calls `delete(_:)` on what another context deleted (Apple,
    // `mergeChanges(fromContextDidSave:)`): a pending deletion may still be read until its
    // context saves it, as in `LegalPatterns`; after that save it is invalid.
    .illegal(
      "attribute get after B saved another context's deletion it had merged",
      .init(
        .invalidatedObject, .read, "Book", "title", in: "B",
        at: "after its deletion was saved", "inside perform of 'B'")
    ) { f in
      let (theirs, note) = try await bookDeletedByA(in: f)
      try await f.b.perform {
        f.b.mergeChanges(fromContextDidSave: note)
        try f.b.save()
        _ = theirs.value.title
      }
    },
    // Both rules are broken: the object is another context's, and that context was reset. The
    // use is reported once, for the first rule the checker meets.
    .illegal(
      "deleting with B an object of A after A was reset",
      .init(.foreignContext, .delete, "Book", in: "A", at: "used with context 'B'")
    ) { f in
      await f.a.perform { f.a.reset() }
      await f.b.perform { f.b.delete(f.book) }
    },
    .illegal(
      "isInserted after the context was reset",
      .init(
        .invalidatedObject, .inspectChanges, "Book", in: "A", at: "after its context was reset")
    ) { f in
      await f.a.perform {
        f.a.reset()
        _ = f.book.isInserted
      }
    },
  ]
}
