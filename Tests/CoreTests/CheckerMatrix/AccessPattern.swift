import ManagedObjectCore
import Testing

// The matrix's table: what a row is, and what an illegal row must record.

/// What an illegal pattern must record.
struct ExpectedViolation: Sendable, CustomStringConvertible {
  let kind: ConcurrencyViolation.Kind
  let operation: ConcurrencyViolation.Operation
  let entity: String?
  let property: String?
  let contextName: String
  /// Fragments the violation's location must contain: where the access ran instead.
  let location: [String]
  /// Fragments the location must not contain: places the access did not run.
  let notLocation: [String]

  init(
    _ kind: ConcurrencyViolation.Kind, _ operation: ConcurrencyViolation.Operation,
    _ entity: String?, _ property: String? = nil, in contextName: String, at location: String...,
    notAt notLocation: [String] = []
  ) {
    self.kind = kind
    self.operation = operation
    self.entity = entity
    self.property = property
    self.contextName = contextName
    self.location = location
    self.notLocation = notLocation
  }

  /// The first words of the description, by kind.
  var title: String {
    switch kind {
    case .outsidePerform: "Confinement violation: "
    case .foreignContext: "Cross-context violation: "
    case .invalidatedObject: "Invalidated-object violation: "
    }
  }

  /// The rule as the slides state it, written out here so that a changed rule fails the test.
  var rulePhrase: String {
    switch kind {
    case .outsidePerform:
      "Rule: A context and its managed objects may only be used inside that context's perform "
        + "or performAndWait block"
    case .foreignContext:
      "Rule: A managed object belongs to one context; to use it elsewhere, pass its objectID"
    case .invalidatedObject:
      "Rule: An object is invalid after its context was reset or its deletion was saved"
    }
  }

  var subject: String {
    switch (entity, property) {
    case (let entity?, let property?): "\(operation.rawValue) of \(entity).\(property)"
    case (let entity?, nil): "\(operation.rawValue) of \(entity)"
    default: operation.rawValue
    }
  }

  var description: String { "\(kind) \(subject) in '\(contextName)'" }

  /// Checks one recorded violation against this one: its fields, and a description that names
  /// the kind, the rule, what was touched, the context, and where it ran.
  func verify(_ violation: ConcurrencyViolation) {
    #expect(violation.kind == kind, "observed: \(violation)")
    #expect(violation.operation == operation, "observed: \(violation)")
    #expect(violation.entity == entity, "observed: \(violation)")
    #expect(violation.property == property, "observed: \(violation)")
    #expect(violation.contextName == contextName, "observed: \(violation)")
    #expect(
      violation.description.hasPrefix(title),
      "the description should start with '\(title)'; observed: \(violation)")
    #expect(
      violation.description.contains(rulePhrase),
      "the description should state the rule ('\(rulePhrase)'); observed: \(violation)")
    #expect(
      violation.description.contains("\(subject) (context '\(contextName)')"),
      "the description should name what was touched and whose; observed: \(violation)")
    for fragment in location {
      #expect(
        violation.location.contains(fragment),
        "the location should say '\(fragment)'; observed location: '\(violation.location)'")
    }
    for fragment in notLocation {
      #expect(
        !violation.location.contains(fragment),
        "the location must not say '\(fragment)'; observed location: '\(violation.location)'")
    }
  }
}

/// One row of the matrix: a name, the expected outcome, and the access itself.
struct AccessPattern: Sendable, Identifiable, CustomTestStringConvertible {
  let name: String
  /// nil when the pattern is legal.
  let expected: ExpectedViolation?
  /// Builds a fresh container named after the pattern, does the access, returns the container.
  let run: @Sendable (_ name: String) async throws -> PersistentContainer

  var id: String { name }
  var testDescription: String { (expected == nil ? "legal: " : "illegal: ") + name }

  /// A legal row on the A/B fixture: `access` gets a fresh one, named after the row.
  static func legal(
    _ name: String, _ access: @escaping @Sendable (Fixture) async throws -> Void
  ) -> AccessPattern {
    legalFromScratch(name, onFixture(access))
  }

  /// An illegal row on the A/B fixture: `access` gets a fresh one, named after the row.
  static func illegal(
    _ name: String, _ expected: ExpectedViolation,
    _ access: @escaping @Sendable (Fixture) async throws -> Void
  ) -> AccessPattern {
    illegalFromScratch(name, expected, onFixture(access))
  }

  /// A legal row that builds its own container, named after the row, and hands it back.
  static func legalFromScratch(
    _ name: String,
    _ run: @escaping @Sendable (String) async throws -> PersistentContainer
  ) -> AccessPattern {
    AccessPattern(name: name, expected: nil, run: run)
  }

  /// An illegal row that builds its own container, named after the row, and hands it back.
  static func illegalFromScratch(
    _ name: String, _ expected: ExpectedViolation,
    _ run: @escaping @Sendable (String) async throws -> PersistentContainer
  ) -> AccessPattern {
    AccessPattern(name: name, expected: expected, run: run)
  }

  private static func onFixture(
    _ access: @escaping @Sendable (Fixture) async throws -> Void
  ) -> @Sendable (String) async throws -> PersistentContainer {
    { name in
      let f = try await fixture(name)
      try await access(f)
      return f.container
    }
  }

  /// The whole table, one section a file.
  static let all: [AccessPattern] =
    legalPatterns + legalThreadPatterns + outsidePerformPatterns + placePatterns
    + crossContextPatterns + invalidatedPatterns + scopePatterns + observerPatterns
}
