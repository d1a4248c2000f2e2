import ManagedObjectCore
import WorkshopSupport

// Illegal: another context's object.

extension AccessPattern {
  static let crossContextPatterns: [AccessPattern] = [
    .illegal(
      "relating objects of two contexts inside perform",
      .init(.foreignContext, .write, "Book", "author", in: "B", at: "used with context 'A'")
    ) { f in
      let id = f.author.objectID
      let foreignAuthor = try await f.b.perform {
        Smuggled(try f.b.existingObject(with: id, as: Author.self))
      }
      let kept = await f.a.perform {
        f.book.author = foreignAuthor.value
        return f.book.author === f.author
      }
      try check(kept, "the cross-context relationship was set anyway")
    },
    .illegal(
      "relating objects of two contexts inside nested performAndWait",
      .init(
        .foreignContext, .write, "Book", "author", in: "B",
        at: "used with context 'A'", "inside perform of 'A', 'B'")
    ) { f in
      let id = f.author.objectID
      try await f.a.perform {
        try f.b.performAndWait {
          f.book.author = try f.b.existingObject(with: id, as: Author.self)
        }
      }
    },
    .illegal(
      "deleting an object with a context it does not belong to",
      .init(.foreignContext, .delete, "Book", in: "A", at: "used with context 'B'")
    ) { f in
      await f.b.perform { f.b.delete(f.book) }
      let deleted = await f.a.perform { f.book.isDeleted }
      try check(!deleted, "B's delete marked A's object as deleted")
    },
    .illegal(
      "refreshing an object with a context it does not belong to",
      .init(.foreignContext, .refresh, "Book", in: "A", at: "used with context 'B'")
    ) { f in
      await f.b.perform { f.b.refresh(f.book, mergeChanges: false) }
    },
    .illegal(
      "obtainPermanentIDs with a context the object does not belong to",
      .init(.foreignContext, .obtainPermanentIDs, nil, in: "A", at: "used with context 'B'")
    ) { f in
      let fresh = await f.a.perform {
        let book = Book(context: f.a)
        book.title = "Emma"
        return Smuggled(book)
      }
      await f.b.perform { f.b.obtainPermanentIDs(for: [fresh.value]) }
      try check(fresh.value.objectID.isTemporaryID, "B gave A's object a permanent ID")
    },
  ]
}
