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
    runDeleteRule(of: number, in: index)
    if contexts[index].objects[number]?.isInserted == true {
      contexts[index].objects[number] = nil
    } else {
      contexts[index].objects[number]?.isDeleted = true
    }
  }

  /// The delete rule (nullify) of `number`, over the values it holds here.
  mutating func runDeleteRule(of number: Int, in index: Int) {
    guard let values = contexts[index].objects[number]?.values ?? row(number, seenBy: index)
    else { return }
    if entities[number] == .author {
      for book in values.books where row(book, seenBy: index)?.author == number {
        load(book, in: index)
        contexts[index].objects[book]?.values?.author = nil
        contexts[index].objects[book]?.isTouched = true
      }
    } else if let author = values.author, books(of: author, in: index).contains(number) {
      changeBooks(of: author, in: index) { $0.remove(number) }
    }
  }

  /// The end of an event in context `index`: the delete rules of the faults that fired there
  /// with their rows gone run now (`deferringRules`).
  mutating func endEvent(in index: Int) {
    let pending = deferredRules.filter { $0.context == index }
    deferredRules.removeAll { $0.context == index }
    for (_, number) in pending { runDeleteRule(of: number, in: index) }
  }

  // MARK: - A parent's lists follow the to-one sides a child's save changed

  /// A book whose `author` a save may have changed, and the authors whose lists may name it.
  struct InverseLink {
    var member: Int
    var owners: Set<Int>
  }

  /// The links a save of context `index` touches: each book whose author changed (old and new
  /// author), each book an author's list gained or lost (that author); a deleted book too.
  func inverseLinks(of change: Change, in index: Int) -> [InverseLink] {
    var links: [InverseLink] = []
    for number in change.inserted.union(change.updated).union(change.deleted).sorted() {
      guard let object = contexts[index].objects[number], let values = object.values else {
        continue
      }
      let read = object.snapshot
      let deleted = change.deleted.contains(number)
      if entities[number] == .book {
        guard read?.author != values.author || deleted else { continue }
        let owners = [read?.author, values.author].compactMap { $0 }
        links.append(InverseLink(member: number, owners: Set(owners)))
      } else {
        let gainedOrLost = (read?.books ?? []).symmetricDifference(values.books)
        for book in gainedOrLost.sorted() {
          links.append(InverseLink(member: book, owners: [number]))
        }
      }
    }
    return links
  }

  /// After a parent took a child's save, as Tests/FIDELITY.md says ("in a parent that takes a
  /// child's save, a to-many side whose inverse is to-one follows the to-one side, as Core
  /// Data's foreign key makes it"): each owner lists the member exactly when the member's author
  /// names it. `before` holds each member's author in the parent before the save; `deleting`,
  /// the child's deletions, whose members name no one and whose owners are skipped.
  mutating func follow(
    _ links: [InverseLink], before: [Int?], deleting: Set<Int>, in parent: Int
  ) {
    for (link, was) in zip(links, before) {
      load(link.member, in: parent)
      let member = contexts[parent].objects[link.member]
      let now =
        deleting.contains(link.member) || member?.isDeleted != false
        ? nil : member?.values?.author
      for owner in link.owners.union([was, now].compactMap { $0 }) {
        load(owner, in: parent)
        guard !deleting.contains(owner), let object = contexts[parent].objects[owner],
          !object.isDeleted, var books = object.values?.books
        else { continue }
        let changed =
          owner == now ? books.insert(link.member).inserted : books.remove(link.member) != nil
        guard changed else { continue }
        contexts[parent].objects[owner]?.values?.books = books
        contexts[parent].objects[owner]?.isTouched = true
      }
    }
  }
}
