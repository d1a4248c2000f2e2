import Foundation

/// A type that can be stored in an ``Attribute``: the value types of Core Data's attribute types.
///
/// `Optional` of any of them is an attribute value too; an optional attribute may be nil when
/// saved, a non-optional one may not.
public protocol AttributeValue: Sendable, Equatable {}

extension String: AttributeValue {}
extension Int: AttributeValue {}
extension Int16: AttributeValue {}
extension Int32: AttributeValue {}
extension Int64: AttributeValue {}
extension Double: AttributeValue {}
extension Float: AttributeValue {}
extension Bool: AttributeValue {}
extension Date: AttributeValue {}
extension UUID: AttributeValue {}
extension Data: AttributeValue {}
extension URL: AttributeValue {}
extension Decimal: AttributeValue {}
extension Optional: AttributeValue where Wrapped: AttributeValue {}

extension AttributeValue {
  func isEqual(to other: any AttributeValue) -> Bool {
    guard let other = other as? Self else { return false }
    return self == other
  }
}

/// Lets the core recognize optional attributes and give them nil as their implicit default.
protocol OptionalAttributeValue {
  static var nilValue: Self { get }
  var unwrappedAttribute: (any AttributeValue)? { get }
}

extension Optional: OptionalAttributeValue {
  static var nilValue: Self { nil }

  /// The wrapped value, when it is an attribute value.
  var unwrappedAttribute: (any AttributeValue)? {
    switch self {
    case .some(let value): value as? any AttributeValue
    case .none: nil
    }
  }
}

/// A property value as the store keeps it: Sendable, comparable, and independent of any context.
enum StoredValue: Sendable, Equatable {
  case attribute(any AttributeValue)
  /// Boxed: an ID is larger than the other payloads, and rows hold many values.
  indirect case toOne(ManagedObjectID?)
  case toMany(Set<ManagedObjectID>)

  static func == (lhs: StoredValue, rhs: StoredValue) -> Bool {
    switch (lhs, rhs) {
    case (.attribute(let a), .attribute(let b)): a.isEqual(to: b)
    case (.toOne(let a), .toOne(let b)): a == b
    case (.toMany(let a), .toMany(let b)): a == b
    default: false
    }
  }

  /// The value as `changedValues()` reports it.
  var publicValue: any Sendable {
    switch self {
    case .attribute(let value): value
    case .toOne(let id): id
    case .toMany(let ids): ids
    }
  }

  func remapping(_ map: [ManagedObjectID: ManagedObjectID]) -> StoredValue {
    switch self {
    case .attribute: self
    case .toOne(let id): .toOne(id.map { map[$0] ?? $0 })
    case .toMany(let ids): .toMany(Set(ids.map { map[$0] ?? $0 }))
    }
  }
}
