/// Relationships and deletion in the reference model: inverses kept in step, the delete rule.
extension ReferenceModel {
  /// Sets a book's author (the to-one side); the inverse (both authors' books) follows.
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

  /// `author.books.insert(book)` (the to-many side). Apple says only that Core Data keeps both
  /// sides in step; the core's choice (`ContextCore.relate`) is that a write changes the inverse
  /// of the members the set gains or loses. So where this context's author already lists the
  /// book (read before the book was moved elsewhere), the book keeps the author it has here.
  mutating func addBook(_ book: Int, to author: Int, in index: Int) {
    changeBooks(of: author, in: index) { _ in }
    guard !books(of: author, in: index).contains(book) else { return }
    changeBooks(of: author, in: index) { $0.insert(book) }
    load(book, in: index)
    if let previous = row(book, seenBy: index)?.author, previous != author {
      changeBooks(of: previous, in: index) { $0.remove(book) }
    }
    contexts[index].objects[book]?.values?.author = author
    contexts[index].objects[book]?.isTouched = true
  }

  /// `author.books.remove(book)`, the to-many side: as `addBook`, the book loses its author only
  /// where this context's author listed it, and only if it named that author.
  mutating func removeBook(_ book: Int, from author: Int, in index: Int) {
    changeBooks(of: author, in: index) { _ in }
    guard books(of: author, in: index).contains(book) else { return }
    changeBooks(of: author, in: index) { $0.remove(book) }
    load(book, in: index)
    if row(book, seenBy: index)?.author == author {
      contexts[index].objects[book]?.values?.author = nil
    }
    contexts[index].objects[book]?.isTouched = true
  }

  mutating func changeBooks(
    of author: Int, in index: Int, _ change: (inout Set<Int>) -> Void
  ) {
    load(author, in: index)
    guard var values = contexts[index].objects[author]?.values else { return }
    change(&values.books)
    contexts[index].objects[author]?.values = values
    contexts[index].objects[author]?.isTouched = true
  }

  /// Deletes `number`: an unsaved insert is simply removed; otherwise a pending deletion. The
  /// delete rule (nullify) takes it out of the other side of each of its relationships, where
  /// that side names it (a stale side may not; the core then leaves it untouched).
  mutating func delete(_ number: Int, in index: Int) {
    // Firing a fault whose row is gone deletes it already (see `load`).
    load(number, in: index)
    guard contexts[index].objects[number]?.isDeleted != true else { return }
    if entities[number] == .author {
      for book in books(of: number, in: index) where row(book, seenBy: index)?.author == number {
        load(book, in: index)
        contexts[index].objects[book]?.values?.author = nil
        contexts[index].objects[book]?.isTouched = true
      }
    } else if let author = row(number, seenBy: index)?.author,
      books(of: author, in: index).contains(number)
    {
      changeBooks(of: author, in: index) { $0.remove(number) }
    }
    if contexts[index].objects[number]?.isInserted == true {
      contexts[index].objects[number] = nil
    } else {
      contexts[index].objects[number]?.isDeleted = true
    }
  }
}
