import Foundation

// To-many relationships are saved as changes, not as sets
// ========================================================
//
// Core Data derives a to-many side from its inverse: adding a book to an author writes the book's
// `author`, and two contexts that each add a book to the same author both keep their book. Its
// conflict snapshots hold attributes and to-one relationships only (`NSMergeConflict`'s
// `objectSnapshot`, `cachedSnapshot` and `persistedSnapshot`). The core keeps a to-many side as
// a set on its own row, so it writes what the saving context added and removed since it read the
// row, never the whole set: an addition is never lost to another context's save, whichever merge
// policy runs (under `.rollback` too, where the store's other values win) and whether the save
// goes to the store or into a parent context.

extension StoredValue {
  /// The objects a to-many value names; nil for attributes and to-one relationships.
  var toManyTargets: Set<ManagedObjectID>? {
    if case .toMany(let ids) = self { return ids }
    return nil
  }

  /// `self`, a value a context wants to write, laid onto `current`, the value the row holds now.
  /// A to-many value applies what was added and removed since `read`, the value the context read;
  /// any other value replaces `current`.
  func applied(onto current: StoredValue?, read: StoredValue?) -> StoredValue {
    guard let wanted = toManyTargets else { return self }
    let before = read?.toManyTargets ?? []
    let now = current?.toManyTargets ?? []
    return .toMany(now.subtracting(before.subtracting(wanted)).union(wanted.subtracting(before)))
  }
}

extension Dictionary where Key == String, Value == StoredValue {
  /// Writes `changes` into these values, each by ``StoredValue/applied(onto:read:)``.
  mutating func apply(_ changes: [String: StoredValue], read: [String: StoredValue]) {
    for (name, value) in changes {
      self[name] = value.applied(onto: self[name], read: read[name])
    }
  }

  /// These values without to-many relationships: what a conflict compares and reports.
  var conflictSnapshot: [String: StoredValue] {
    filter { $0.value.toManyTargets == nil }
  }
}
