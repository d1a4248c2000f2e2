/// Saves and merges in the reference model (the sentences are in `ReferenceModel`'s comment).
extension ReferenceModel {
  /// What one save changed, as its did-save notification lists it.
  struct Change: Hashable {
    var inserted: Set<Int> = []
    var updated: Set<Int> = []
    var deleted: Set<Int> = []
    var fromBatch = false

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
  }

  enum SaveOutcome: Equatable {
    case saved(Change)
    /// A conflict under `.error`: the save throws and nothing changes.
    case conflict
  }

  func pendingChange(in index: Int) -> Change {
    var change = Change()
    for (number, object) in contexts[index].objects {
      if object.isInserted {
        change.inserted.insert(number)
      } else if object.isDeleted {
        change.deleted.insert(number)
      } else if object.hasChanges {
        change.updated.insert(number)
      }
    }
    return change
  }

  /// Saves context `index` into its parent, then lets the contexts that merge automatically
  /// merge it.
  mutating func save(_ index: Int) -> SaveOutcome {
    var change = pendingChange(in: index)
    if change.isEmpty { return .saved(change) }
    switch contexts[index].parent {
    case .store:
      guard !hasConflict(change, in: index) || contexts[index].trumpsOnConflict else {
        return .conflict
      }
      change.updated.subtract(writeToStore(change, from: index))
      lastSaves[index] = change
    case .context(let parent):
      // The parent finds each edited object first, firing its faults; an edit to an object it
      // no longer has fails (the core's objectNotFound; Apple does not say).
      for number in change.updated { load(number, in: parent) }
      guard change.updated.allSatisfy({ contexts[parent].objects[$0] != nil }) else {
        return .conflict
      }
      push(change, from: index, into: parent)
    }
    for other in contexts.indices where other != index && contexts[other].mergesAutomatically {
      let parent = contexts[other].parent
      if parent == .context(index) || parent == contexts[index].parent {
        merge(change, into: other)
      }
    }
    return .saved(change)
  }

  /// Optimistic locking: an updated or deleted row whose version moved since it was read, or an
  /// updated row that is gone.
  func hasConflict(_ change: Change, in index: Int) -> Bool {
    change.updated.union(change.deleted).contains { number in
      let object = contexts[index].objects[number]!
      guard store[number] != nil else { return !object.isDeleted }
      return versions[number] != object.version
    }
  }

  /// Writes the change; returns the updated objects whose edits were dropped.
  private mutating func writeToStore(_ change: Change, from index: Int) -> Set<Int> {
    var dropped: Set<Int> = []
    // Books first: an author's row in the store lists the books that name it.
    let written = change.inserted.union(change.updated).sorted {
      (entities[$0] == .book ? 0 : 1, $0) < (entities[$1] == .book ? 0 : 1, $1)
    }
    for number in written {
      let object = contexts[index].objects[number]!
      // A fault with no row left in its parent has nothing to write.
      guard let values = object.values ?? object.snapshot else { continue }
      let saved: Row
      if object.isInserted {
        saved = values
      } else if let current = row(number, in: .store) {
        saved = Self.reapply(changesFrom: object.snapshot, to: values, onto: current)
      } else {
        // Under mergeByPropertyObjectTrump, an edit to a row deleted elsewhere is dropped (the
        // core's choice; Apple does not say).
        contexts[index].objects[number] = nil
        dropped.insert(number)
        continue
      }
      store[number] = saved
      versions[number, default: 0] += 1
      contexts[index].objects[number] = Object(
        values: saved, snapshot: saved, version: versions[number]!)
    }
    for number in change.deleted {
      store[number] = nil
      contexts[index].objects[number] = nil
    }
    // The store's lists follow the books' authors (Tests/FIDELITY.md: "After each
    // save, in the store [...] a to-many side whose inverse is to-one follows the to-one side"), so an author saved with
    // a book whose row is gone no longer lists it, here too.
    for number in written where entities[number] == .author {
      guard contexts[index].objects[number] != nil, let stored = row(number, in: .store) else {
        continue
      }
      contexts[index].objects[number]?.values = stored
      contexts[index].objects[number]?.snapshot = stored
    }
    return dropped
  }

  private mutating func push(_ change: Change, from index: Int, into parent: Int) {
    let links = inverseLinks(of: change, in: index)
    let before = links.map { link -> Int? in
      load(link.member, in: parent)
      return contexts[parent].objects[link.member]?.values?.author
    }
    for number in change.inserted {
      let values = contexts[index].objects[number]!.values!
      contexts[parent].objects[number] = Object(values: values, isInserted: true)
    }
    for number in change.updated {
      let object = contexts[index].objects[number]!
      load(number, in: parent)
      if let values = object.values, let current = contexts[parent].objects[number]?.values {
        contexts[parent].objects[number]?.values =
          Self.reapply(changesFrom: object.snapshot, to: values, onto: current)
      }
      if object.isTouched, contexts[parent].objects[number]?.values != nil {
        contexts[parent].objects[number]?.isTouched = true
      }
    }
    let deleted = change.deleted.filter { row($0, in: .context(parent)) != nil }
    follow(links, before: before, deleting: deleted, in: parent)
    // A deletion of a row the parent no longer has leaves nothing to delete there; otherwise it
    // is the parent's deletion now, and the delete rule takes it out of the parent's lists.
    for number in deleted { delete(number, in: parent) }
    for number in change.inserted.union(change.updated) {
      let values = contexts[index].objects[number]!.values
      contexts[index].objects[number] = Object(values: values, snapshot: values)
    }
    for number in change.deleted { contexts[index].objects[number] = nil }
  }

  /// `mergeChanges(fromContextDidSave:)` into context `index`; a batch request's change merges
  /// as `mergeChanges(fromRemoteContextSave:into:)` does, which removes the deleted objects from
  /// memory (Apple, `NSBatchDeleteRequest`: "you must remove any deleted objects from memory").
  mutating func merge(_ change: Change, into index: Int) {
    let source = contexts[index].parent
    for number in change.inserted where contexts[index].objects[number] == nil {
      if row(number, in: source) != nil { registerFault(number, in: index) }
    }
    for number in change.updated { refresh(number, in: index, mergeChanges: true) }
    for number in change.deleted where contexts[index].objects[number] != nil {
      if change.fromBatch {
        contexts[index].objects[number] = nil
      } else {
        delete(number, in: index)
      }
    }
  }

  // MARK: - Batch requests, straight to the store

  mutating func batchInsert(_ rows: [Row], numbers: [Int]) -> Change {
    var change = Change(fromBatch: true)
    for (number, row) in zip(numbers, rows) {
      entities[number] = .book
      store[number] = row
      versions[number, default: 0] += 1
      change.inserted.insert(number)
    }
    return change
  }

  mutating func batchUpdate(pagesBelow limit: Int, to pages: Int) -> Change {
    var change = Change(fromBatch: true)
    for (number, row) in store where entities[number] == .book && row.pages < limit {
      store[number]!.pages = pages
      versions[number, default: 0] += 1
      change.updated.insert(number)
    }
    return change
  }

  mutating func batchDelete(pagesBelow limit: Int) -> Change {
    var change = Change(fromBatch: true)
    for (number, row) in store where entities[number] == .book && row.pages < limit {
      store[number] = nil
      dangling[number] = row.author
      change.deleted.insert(number)
    }
    return change
  }
}
