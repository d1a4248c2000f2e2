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

// A to-many side whose inverse is to-one follows the to-one side
// ===============================================================
//
// Saved as changes, a to-many side could still disagree with its inverse when two contexts move
// one object: a stale context moves a book from Ann to Carl after another moved it to Bob, and a
// merge policy picks one `author`, but both Bob and Carl were told of the book. Core Data keeps
// such a to-many side as the to-one side's foreign key ("Core Data makes it easy for you to alter
// relationships between managed objects without causing referential integrity errors", Core Data
// Programming Guide, "Relationships and Fetched Properties"), so the lists always follow the
// `author` that won. The core brings them in line after each save, in the store and in a parent
// context that takes a child's save.

/// One object's to-one relationship whose inverse is to-many, as a save changed it: after the
/// save, an owner's `list` holds `member` exactly when `member`'s `link` names that owner.
struct InverseLink {
  let member: ManagedObjectID
  /// The to-one relationship of `member`.
  let link: String
  /// Its inverse, the owners' to-many relationship.
  let list: String
  /// The owners the save may have changed, besides the member's old and new ones.
  var owners: Set<ManagedObjectID>

  func remapping(_ map: [ManagedObjectID: ManagedObjectID]) -> InverseLink {
    guard !map.isEmpty else { return self }
    return InverseLink(
      member: map[member] ?? member, link: link, list: list,
      owners: Set(owners.map { map[$0] ?? $0 }))
  }
}

extension StoredValue {
  /// The object a to-one value names.
  var toOneTarget: ManagedObjectID? {
    if case .toOne(let id) = self { return id }
    return nil
  }

  /// The objects a relationship value names.
  var relationshipTargets: Set<ManagedObjectID> {
    switch self {
    case .toOne(let id): id.map { [$0] } ?? []
    case .toMany(let ids): ids
    case .attribute: []
    }
  }
}

extension ManagedObject {
  /// The links this object's unsaved changes touch (lock held): its to-one sides whose inverse is
  /// to-many, and the members its to-many sides gained or lost whose inverse is to-one.
  func changedInverseLinks() -> [InverseLink] {
    guard hasRelationships, lifecycle != .deleted(wasInserted: true) else { return [] }
    var links: [InverseLink] = []
    for cell in cells where cell.isRelationship {
      guard let inverse = cell.inverseName else { continue }
      let read = committed[cell.name]?.relationshipTargets ?? []
      let now = cell.targets
      guard read != now || lifecycle == .deleted(wasInserted: false) else { continue }
      guard cell.inverseIsToMany != cell.isToMany else { continue }
      if cell.isToMany {
        for member in read.symmetricDifference(now) {
          links.append(InverseLink(member: member, link: inverse, list: cell.name, owners: [id]))
        }
      } else {
        links.append(
          InverseLink(member: id, link: cell.name, list: inverse, owners: read.union(now)))
      }
    }
    return links
  }
}

extension RowTable {
  /// Makes the owners' lists follow their members' to-one values (the store's lock held);
  /// `before` is the table as the save found it, where each member's previous owner is.
  mutating func follow(_ links: [InverseLink], from before: RowTable) {
    for link in links {
      guard let member = link.member.row else { continue }
      let now = self[member]?.values[link.link]?.toOneTarget
      var owners = link.owners
      if let was = before[member]?.values[link.link]?.toOneTarget { owners.insert(was) }
      if let now { owners.insert(now) }
      for owner in owners {
        guard let row = owner.row, var current = self[row] else { continue }
        var list = current.values[link.list]?.toManyTargets ?? []
        let changed =
          owner == now ? list.insert(link.member).inserted : list.remove(link.member) != nil
        guard changed else { continue }
        current.values[link.list] = .toMany(list)
        self[row] = current
      }
    }
  }
}

extension ContextCore {
  /// Each link's member's owner in this context, before it takes a child's save (lock held).
  func owners(of links: [InverseLink], in state: ContextState) -> [ManagedObjectID?] {
    links.map { link in
      object(for: link.member, in: state)?.cellsByName[link.link]?.targets.first
    }
  }

  /// Makes this context's owners' lists follow their members' to-one values after it took a
  /// child's save (lock held); `before` is ``owners(of:in:)`` from before it.
  func follow(_ links: [InverseLink], before: [ManagedObjectID?], in state: ContextState) {
    for (link, was) in zip(links, before) {
      let member = object(for: link.member, in: state)
      let now: ManagedObjectID? =
        switch member?.lifecycle {
        case .inserted?, .persisted?: member?.cellsByName[link.link]?.targets.first
        default: nil
        }
      var owners = link.owners
      if let was { owners.insert(was) }
      if let now { owners.insert(now) }
      for id in owners {
        guard let owner = object(for: id, in: state), let list = owner.cellsByName[link.list],
          owner.lifecycle == .inserted || owner.lifecycle == .persisted
        else { continue }
        let memberID = member?.id ?? link.member
        let changed =
          owner.id == now
          ? list.targets.insert(memberID).inserted : list.targets.remove(memberID) != nil
        if changed { owner.markWritten(in: state) }
      }
    }
  }
}
