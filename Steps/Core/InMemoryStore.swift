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
    var rows: [Int64: Row] = [:]
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
    return rows.lazy.filter { $0.value.entity is Entity.Type }
      .map { (row: $0.key, value: $0.value) }
      .sorted { $0.row < $1.row }
  }

  func commit(
    inserts: [Insert], updates: [Update], deletes: [Delete], policy: MergePolicy
  ) throws(PersistenceError) -> [ManagedObjectID: Resolution] {
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
          values.merge(update.changed) { $1 }
        } else {
          let changedInStore = Self.differences(current.values, update.snapshot)
          switch policy {
          case .error:
            conflicts.append(
              MergeConflict(
                objectID: update.objectID, entityName: update.objectID.entityName,
                isDeletedInStore: false, changedInStore: changedInStore.sorted(),
                changedInContext: update.changed.keys.sorted()))
            continue
          case .mergeByPropertyObjectTrump:
            values.merge(update.changed) { $1 }
          case .mergeByPropertyStoreTrump:
            values.merge(update.changed.filter { !changedInStore.contains($0.key) }) { $1 }
          case .overwrite:
            values.merge(update.all) { $1 }
          case .rollback:
            resolutions[update.objectID] = .stored(values, version: current.version, written: false)
            continue
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
                changedInStore: Self.differences(current.values, delete.snapshot).sorted(),
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
      for insert in inserts {
        rows[insert.row] = Row(entity: insert.entity, values: insert.values, version: 1)
      }
      state.rows = rows
      state.tombstones.formUnion(removed)
      return resolutions
    }
  }

  private static func differences(
    _ lhs: [String: StoredValue], _ rhs: [String: StoredValue]
  ) -> Set<String> {
    Set(lhs.keys).union(rhs.keys).filter { lhs[$0] != rhs[$0] }
  }
}
