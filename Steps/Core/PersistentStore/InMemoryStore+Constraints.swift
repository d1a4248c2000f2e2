import Foundation

// Uniqueness constraints: where a save's or a batch's new rows go when a key is taken.

extension InMemoryStore {
  /// Writes new rows into `rows`, honouring each entity's uniqueness constraints: a new row whose
  /// key is taken (by an existing row or an earlier new one) is a conflict under `.error`, is
  /// merged into the holder under `.mergeByPropertyObjectTrump` and `.overwrite`, and gives way
  /// to it under `.mergeByPropertyStoreTrump` and `.rollback`. References to new rows that were
  /// merged away are redirected to the rows that took them in.
  func place(
    _ inserts: [Insert], policy: MergePolicy, in rows: inout RowTable
  ) throws(PersistenceError) -> [Int64: Placement] {
    var keys = ConstraintIndex()
    var conflicts: [ConstraintConflict] = []
    var target: [Int64: Int64] = [:]
    for insert in inserts {
      let constraints = insert.entity.uniquenessConstraints
      if !constraints.isEmpty { keys.index(insert.entity, constraints, in: rows) }
      guard let (holder, properties) = keys.holder(of: insert.values, insert.entity, constraints)
      else {
        rows[insert.row] = Row(
          entity: insert.entity, values: insert.values, version: Self.insertedVersion)
        keys.add(insert.row, insert.values, insert.entity, constraints)
        target[insert.row] = insert.row
        continue
      }
      target[insert.row] = holder
      switch policy {
      case .error:
        conflicts.append(
          ConstraintConflict(
            entityName: EntityNames.name(of: insert.entity), properties: properties,
            existingObjectID: id(of: holder, rows[holder]!.entity)))
      case .mergeByPropertyObjectTrump, .overwrite:
        rows[holder]!.values.merge(insert.values) { $1 }
        rows[holder]!.version += 1
        keys.add(holder, rows[holder]!.values, insert.entity, constraints)
      case .mergeByPropertyStoreTrump, .rollback:
        break
      }
    }
    guard conflicts.isEmpty else { throw .constraintConflict(conflicts) }
    let redirect = Dictionary(
      uniqueKeysWithValues: target.filter { $0.key != $0.value }.map { old, new in
        (id(of: old, rows[new]!.entity), id(of: new, rows[new]!.entity))
      })
    if !redirect.isEmpty {
      for row in Set(target.values) {
        rows[row]!.values = rows[row]!.values.mapValues { $0.remapping(redirect) }
      }
    }
    // An insert stored as sent, at version 1, needs no word: only the others are handed back.
    let changed = redirect.isEmpty ? target.filter { $0.key != $0.value } : target
    return changed.mapValues { row in
      Placement(row: row, values: rows[row]!.values, version: rows[row]!.version)
    }
  }
}

/// Which row holds each key of each uniqueness constraint, built as rows are placed.
struct ConstraintIndex {
  private var holders: [String: Int64] = [:]
  private var indexed: Set<ObjectIdentifier> = []

  /// A key that compares values by type and content; nil when a value is missing, since a
  /// missing value takes no key (as NULL in SQL).
  private static func key(
    _ values: [String: StoredValue], _ entity: ManagedObject.Type, _ properties: [String]
  ) -> String? {
    var parts = [EntityNames.name(of: entity), properties.joined(separator: ",")]
    for property in properties {
      guard case .attribute(let value)? = values[property] else { return nil }
      parts.append("\(type(of: value))=\(value)")
    }
    return parts.joined(separator: "|")
  }

  mutating func index(
    _ entity: ManagedObject.Type, _ constraints: [[String]], in rows: RowTable
  ) {
    guard indexed.insert(ObjectIdentifier(entity)).inserted else { return }
    for (row, value) in rows where value.entity == entity {
      add(row, value.values, entity, constraints)
    }
  }

  mutating func add(
    _ row: Int64, _ values: [String: StoredValue], _ entity: ManagedObject.Type,
    _ constraints: [[String]]
  ) {
    for properties in constraints {
      if let key = Self.key(values, entity, properties) { holders[key] = row }
    }
  }

  func holder(
    of values: [String: StoredValue], _ entity: ManagedObject.Type, _ constraints: [[String]]
  ) -> (Int64, [String])? {
    for properties in constraints {
      if let key = Self.key(values, entity, properties), let row = holders[key] {
        return (row, properties)
      }
    }
    return nil
  }
}
