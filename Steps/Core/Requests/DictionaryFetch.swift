import Foundation

// Fetches that return dictionaries instead of objects (WWDC20): chosen attributes, and
// aggregates over groups of rows, computed without materializing a single object. Like Core
// Data's dictionary results, they read the saved state that the context's parent holds, not the
// context's own pending changes.

/// An aggregate over one attribute, like an `NSExpressionDescription` in `propertiesToFetch`.
public enum AggregateFunction: String, Sendable, Hashable {
  /// The number of rows whose attribute is not nil, as `Int`.
  case count
  /// The sum: `Int` over integer attributes, `Double` over the others.
  case sum
  /// The mean, as `Double`.
  case average
  /// The smallest value, of the attribute's own type.
  case min
  /// The largest value, of the attribute's own type.
  case max
}

/// One key of a dictionary result.
public enum FetchedProperty: Sendable, Hashable {
  /// An attribute, under its own name.
  case attribute(String)
  /// An aggregate of an attribute, under `name`.
  case expression(name: String, function: AggregateFunction, attribute: String)

  var key: String {
    switch self {
    case .attribute(let name): name
    case .expression(let name, _, _): name
    }
  }
}

extension ContextCore {
  func fetchDictionaries<Entity: ManagedObject>(
    _ request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [[String: any Sendable]] {
    try access(.fetch, entity: EntityNames.name(of: Entity.self)) {
      (_) throws(PersistenceError) -> [[String: any Sendable]] in
      try internally { () throws(PersistenceError) in
        try dictionaries(for: request)
      }
    }
  }

  private func dictionaries<Entity: ManagedObject>(
    for request: FetchRequest<Entity>
  ) throws(PersistenceError) -> [[String: any Sendable]] {
    let entityName = EntityNames.name(of: Entity.self)
    var probe = RowProbe<Entity>(core: self, predicate: request.predicate)
    var rows: [SourceRow] = []
    for row in sourceRows(of: Entity.self) where try probe.matches(row) {
      rows.append(row)
    }

    // Every name must be an attribute; grouped results may only show grouped attributes.
    let schema = ManagedObjectSchema(Entity.self, core: self)
    let properties =
      request.propertiesToFetch.isEmpty
      ? schema.attributeNames.map(FetchedProperty.attribute) : request.propertiesToFetch
    for name in request.propertiesToGroupBy + properties.map(\.attributeName) {
      guard schema.attributeNames.contains(name) else {
        throw .unknownProperty(entity: entityName, property: name)
      }
    }
    let grouping = !request.propertiesToGroupBy.isEmpty
    let aggregating = properties.contains { if case .expression = $0 { true } else { false } }
    for case .attribute(let name) in properties
    where (grouping || aggregating) && !request.propertiesToGroupBy.contains(name) {
      throw .invalidFetch(
        "\(entityName).\(name) is fetched next to aggregates but is not in propertiesToGroupBy")
    }

    var results: [[String: any Sendable]]
    if grouping || aggregating {
      var groups: [(key: [String], rows: [SourceRow])] = []
      var positions: [[String]: Int] = [:]
      for row in rows {
        let key = request.propertiesToGroupBy.map { AggregateValue.key(row.values[$0]) }
        if let position = positions[key] {
          groups[position].rows.append(row)
        } else {
          positions[key] = groups.count
          groups.append((key, [row]))
        }
      }
      if !grouping && groups.isEmpty { groups = [([], [])] }
      results = groups.map { group in
        var result: [String: any Sendable] = [:]
        for name in request.propertiesToGroupBy {
          if let value = AggregateValue.attribute(group.rows.first?.values[name]) {
            result[name] = value
          }
        }
        for case .expression(let name, let function, let attribute) in properties {
          let values = group.rows.compactMap { AggregateValue.attribute($0.values[attribute]) }
          if let value = AggregateValue.aggregate(function, values) { result[name] = value }
        }
        return result
      }
      results.sort { lhs, rhs in
        for name in request.propertiesToGroupBy {
          let (left, right) = (lhs[name] as? any AttributeValue, rhs[name] as? any AttributeValue)
          if AggregateValue.key(left) == AggregateValue.key(right) { continue }
          return AggregateValue.less(left, right)
        }
        return false
      }
    } else {
      results = rows.map { row in
        var result: [String: any Sendable] = [:]
        for case .attribute(let name) in properties {
          if let value = AggregateValue.attribute(row.values[name]) { result[name] = value }
        }
        return result
      }
    }
    let dropped = results.dropFirst(max(request.fetchOffset, 0))
    return Array(request.fetchLimit > 0 ? dropped.prefix(request.fetchLimit) : dropped)
  }
}

extension FetchedProperty {
  var attributeName: String {
    switch self {
    case .attribute(let name): name
    case .expression(_, _, let attribute): attribute
    }
  }
}

/// The names of an entity's attributes, read off a scratch instance's cells.
struct ManagedObjectSchema {
  let attributeNames: [String]

  init(_ entity: ManagedObject.Type, core: ContextCore) {
    let id = ManagedObjectID(
      storeIdentifier: core.store.identifier, entityName: EntityNames.name(of: entity),
      storage: .temporary(context: ContextID(rawValue: 0), serial: 0))
    let probe = entity.init(ObjectRegistration(core: core, id: id, isInserted: false))
    attributeNames = probe.cells.filter { !$0.isRelationship }.map(\.name)
  }
}

/// Arithmetic and ordering over attribute values of any supported type.
enum AggregateValue {
  /// The attribute's value, unwrapped from an optional; nil when absent or nil.
  static func attribute(_ stored: StoredValue?) -> (any AttributeValue)? {
    guard case .attribute(let value)? = stored else { return nil }
    if let optional = value as? any OptionalAttributeValue { return optional.unwrappedAttribute }
    return value
  }

  /// A hashable key that tells values apart by type and content.
  static func key(_ value: (any AttributeValue)?) -> String {
    guard let value else { return "nil" }
    return "\(type(of: value))=\(value)"
  }

  static func key(_ stored: StoredValue?) -> String { key(attribute(stored)) }

  private static func integer(_ value: any AttributeValue) -> Int? {
    switch value {
    case let value as Int: value
    case let value as Int16: Int(value)
    case let value as Int32: Int(value)
    case let value as Int64: Int(value)
    default: nil
    }
  }

  private static func number(_ value: any AttributeValue) -> Double? {
    if let integer = integer(value) { return Double(integer) }
    switch value {
    case let value as Double: return value
    case let value as Float: return Double(value)
    case let value as Decimal: return NSDecimalNumber(decimal: value).doubleValue
    default: return nil
    }
  }

  static func less(_ lhs: (any AttributeValue)?, _ rhs: (any AttributeValue)?) -> Bool {
    guard let lhs else { return rhs != nil }
    guard let rhs else { return false }
    if let left = number(lhs), let right = number(rhs) { return left < right }
    if let left = lhs as? String, let right = rhs as? String { return left < right }
    if let left = lhs as? Date, let right = rhs as? Date { return left < right }
    return key(lhs) < key(rhs)
  }

  static func aggregate(
    _ function: AggregateFunction, _ values: [any AttributeValue]
  ) -> (any Sendable)? {
    switch function {
    case .count:
      return values.count
    case .sum:
      if values.allSatisfy({ integer($0) != nil }) { return values.reduce(0) { $0 + integer($1)! } }
      return values.reduce(0.0) { $0 + (number($1) ?? 0) }
    case .average:
      guard !values.isEmpty else { return nil }
      return values.reduce(0.0) { $0 + (number($1) ?? 0) } / Double(values.count)
    case .min:
      return values.min { less($0, $1) }
    case .max:
      return values.max { less($0, $1) }
    }
  }
}
