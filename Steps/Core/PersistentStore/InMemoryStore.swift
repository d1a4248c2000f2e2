import Foundation

/// The persistent store: rows by row number, each with a version for optimistic locking.
/// Every change arrives through `commit`, which applies all of a save or none of it.
final class InMemoryStore: Sendable {
  struct Row {
    let entity: ManagedObject.Type
    var values: [String: StoredValue]
    var version: Int
  }

  struct Insert {
    let row: Int64
    let entity: ManagedObject.Type
    let values: [String: StoredValue]
  }

  struct Update {
    let objectID: ManagedObjectID
    let row: Int64
    let changed: [String: StoredValue]
    let all: [String: StoredValue]
    let snapshot: [String: StoredValue]
    let readVersion: Int
  }

  struct Delete {
    let objectID: ManagedObjectID
    let row: Int64
    let readVersion: Int
    let snapshot: [String: StoredValue]
  }

  /// What became of an updated or deleted object after conflict resolution.
  enum Resolution {
    /// The row now holds these values at this version.
    case stored([String: StoredValue], version: Int, written: Bool)
    case deleted
  }

  private struct State {
    var rows = RowTable()
    var tombstones: Set<Int64> = []
    var nextRow: Int64 = 1
  }

  let identifier = UUID()
  private let state = Locked(State())

  func reserveRows(_ count: Int) -> [Int64] {
    state.withLock { state in
      let first = state.nextRow
      state.nextRow += Int64(count)
      return (0..<Int64(count)).map { first + $0 }
    }
  }

  enum Lookup {
    case found(Row)
    case deleted
    case missing
  }

  func row(_ row: Int64) -> Lookup {
    state.withLock { state in
      if let found = state.rows[row] { return .found(found) }
      return state.tombstones.contains(row) ? .deleted : .missing
    }
  }

  /// All rows whose entity is `Entity` or a subclass, in row order.
  func rows<Entity: ManagedObject>(of entity: Entity.Type) -> [(row: Int64, value: Row)] {
    let rows = state.withLock { $0.rows }
    return rows.filter { $0.value.entity is Entity.Type }.map { (row: $0.key, value: $0.value) }
  }

  /// Where an inserted row ended up: its own row, or, on a uniqueness conflict resolved by the
  /// merge policy, the row that already held its key.
  struct Placement {
    let row: Int64
    let values: [String: StoredValue]
    let version: Int
  }

  /// The version of a row a save or a batch has just inserted.
  static let insertedVersion = 1

  struct CommitResult {
    /// Updated and deleted objects, by ID.
    var resolutions: [ManagedObjectID: Resolution] = [:]
    /// Inserted rows, by the row each insert reserved, where the store did not keep an insert as
    /// it was sent (at that row, with those values, at version 1): a uniqueness constraint sent it
    /// to another row, or a row it names moved, or a list followed its members.
    var placements: [Int64: Placement] = [:]
  }

  /// Applies a save, all or nothing; then the to-many sides of `links` follow their to-one sides
  /// (ToManyChanges.swift), and the values it hands back include that.
  func commit(
    inserts: [Insert], updates: [Update], deletes: [Delete], links: [InverseLink] = [],
    policy: MergePolicy
  ) throws(PersistenceError) -> CommitResult {
    try state.withLock { (state: inout State) throws(PersistenceError) in
      var rows = state.rows
      var resolutions: [ManagedObjectID: Resolution] = [:]
      var conflicts: [MergeConflict] = []
      var removed: [Int64] = []

      for update in updates {
        guard let current = rows[update.row] else {
          if policy == .error {
            conflicts.append(
              MergeConflict(
                objectID: update.objectID, entityName: update.objectID.entityName,
                isDeletedInStore: true, changedInStore: [],
                changedInContext: update.changed.keys.sorted()))
          }
          resolutions[update.objectID] = .deleted
          continue
        }
        var values = current.values
        if current.version == update.readVersion {
          values.apply(update.changed, read: update.snapshot)
        } else {
          let changedInStore = Self.differences(
            current.values.conflictSnapshot, update.snapshot.conflictSnapshot)
          switch policy {
          case .error:
            conflicts.append(
              MergeConflict(
                objectID: update.objectID, entityName: update.objectID.entityName,
                isDeletedInStore: false, changedInStore: changedInStore.sorted(),
                changedInContext: update.changed.conflictSnapshot.keys.sorted()))
            continue
          case .mergeByPropertyObjectTrump:
            values.apply(update.changed, read: update.snapshot)
          case .mergeByPropertyStoreTrump:
            // To-many changes always apply: they are additions and removals, not a whole set.
            values.apply(
              update.changed.filter { !changedInStore.contains($0.key) }, read: update.snapshot)
          case .overwrite:
            values.apply(update.all, read: update.snapshot)
          case .rollback:
            // The store's values win, but to-many changes still apply: in Core Data they derive
            // from the other side's link, which is written regardless (ToManyChanges.swift).
            let toMany = update.changed.filter { $0.value.toManyTargets != nil }
            guard !toMany.isEmpty else {
              resolutions[update.objectID] = .stored(
                values, version: current.version, written: false)
              continue
            }
            values.apply(toMany, read: update.snapshot)
          }
        }
        let version = current.version + 1
        rows[update.row] = Row(entity: current.entity, values: values, version: version)
        resolutions[update.objectID] = .stored(values, version: version, written: true)
      }

      for delete in deletes {
        guard let current = rows[delete.row] else {
          resolutions[delete.objectID] = .deleted
          continue
        }
        if current.version != delete.readVersion {
          switch policy {
          case .error:
            conflicts.append(
              MergeConflict(
                objectID: delete.objectID, entityName: delete.objectID.entityName,
                isDeletedInStore: false,
                changedInStore: Self.differences(
                  current.values.conflictSnapshot, delete.snapshot.conflictSnapshot
                ).sorted(),
                changedInContext: []))
            continue
          case .mergeByPropertyStoreTrump, .rollback:
            resolutions[delete.objectID] = .stored(
              current.values, version: current.version, written: false)
            continue
          case .mergeByPropertyObjectTrump, .overwrite:
            break
          }
        }
        rows[delete.row] = nil
        removed.append(delete.row)
        resolutions[delete.objectID] = .deleted
      }

      guard conflicts.isEmpty else {
        throw .mergeConflict(conflicts.sorted { $0.objectID.description < $1.objectID.description })
      }
      var placements = try place(inserts, policy: policy, in: &rows)
      if !links.isEmpty {
        rows.follow(links, from: state.rows)
        for update in updates {
          guard case .stored(_, let version, let written)? = resolutions[update.objectID],
            let row = rows[update.row]
          else { continue }
          resolutions[update.objectID] = .stored(row.values, version: version, written: written)
        }
        for insert in inserts {
          let row = placements[insert.row]?.row ?? insert.row
          placements[insert.row] = Placement(
            row: row, values: rows[row]!.values, version: rows[row]!.version)
        }
      }
      state.rows = rows
      state.tombstones.formUnion(removed)
      return CommitResult(resolutions: resolutions, placements: placements)
    }
  }

  func id(of row: Int64, _ entity: ManagedObject.Type) -> ManagedObjectID {
    ManagedObjectID(key: .of(entity, in: identifier), storage: .permanent(row: row))
  }

  private static func differences(
    _ lhs: [String: StoredValue], _ rhs: [String: StoredValue]
  ) -> Set<String> {
    Set(lhs.keys).union(rhs.keys).filter { lhs[$0] != rhs[$0] }
  }

  // MARK: - Batch requests: straight to the rows, no contexts involved

  /// Inserts rows of `entity` as one batch, with the same constraint handling as a save.
  func batchInsert(
    _ values: [[String: StoredValue]], entity: ManagedObject.Type, policy: MergePolicy
  ) throws(PersistenceError) -> (inserted: [ManagedObjectID], updated: [ManagedObjectID]) {
    let reserved = reserveRows(values.count)
    return try state.withLock { (state: inout State) throws(PersistenceError) in
      var rows = state.rows
      let inserts = zip(reserved, values).map { Insert(row: $0, entity: entity, values: $1) }
      let placements = try place(inserts, policy: policy, in: &rows)
      state.rows = rows
      var inserted: [ManagedObjectID] = []
      inserted.reserveCapacity(reserved.count)
      var updated: [ManagedObjectID] = []
      // A row that an earlier insert of this batch made counts as inserted, however often a
      // later one updated it; sets keep an upsert of many rows linear.
      var insertedRows: Set<Int64> = []
      var updatedRows: Set<Int64> = []
      let key = EntityKey.of(entity, in: identifier)
      for row in reserved {
        let placed = placements[row]?.row ?? row
        if placed == row {
          inserted.append(ManagedObjectID(key: key, storage: .permanent(row: row)))
          insertedRows.insert(row)
        } else if updatedRows.insert(placed).inserted {
          updated.append(id(of: placed, rows[placed]!.entity))
        }
      }
      return (inserted, updated.filter { !insertedRows.contains($0.row!) })
    }
  }

  /// Sets `values` on the rows that still exist; returns their IDs.
  func batchUpdate(_ targets: [Int64], values: [String: StoredValue]) -> [ManagedObjectID] {
    state.withLock { state in
      targets.compactMap { row -> ManagedObjectID? in
        guard var current = state.rows[row] else { return nil }
        current.values.merge(values) { $1 }
        current.version += 1
        state.rows[row] = current
        return id(of: row, current.entity)
      }
    }
  }

  /// Deletes the rows that still exist; returns their IDs.
  func batchDelete(_ targets: [Int64]) -> [ManagedObjectID] {
    state.withLock { state in
      targets.compactMap { row -> ManagedObjectID? in
        guard let removed = state.rows.removeValue(forKey: row) else { return nil }
        state.tombstones.insert(row)
        return id(of: row, removed.entity)
      }
    }
  }
}
