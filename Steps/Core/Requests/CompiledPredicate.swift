import Foundation

// Fetching over many rows
// =======================
//
// A fetch judges every row of the store that no pending change hides. Evaluating a Foundation
// `Predicate` on an object costs a metadata lookup per node and per row, and the object must be
// loaded first; over 100,000 rows that is most of a fetch. So a predicate made of the shapes a
// `#Predicate` over attributes produces (a key path to an attribute, constants, comparisons,
// `&&`, `||`, `!`, `nil`, `??`, `+ - *`, `/` and `%` on integers) is compiled once per fetch into closures
// over a row's stored values. Any other shape (a relationship, a string method, a computed
// property) is judged as before, on a scratch object loaded with the row: the results are the
// same, only the cost differs.

/// A predicate expression the core can compile into a closure over a row's stored values.
protocol RowCompilable: PredicateExpression {
  /// The closure, or nil when a part of the expression has a shape the core does not compile.
  /// The closure returns nil for a row it cannot judge (a value of an unexpected type), which
  /// the caller then judges on an object.
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Output?)?
}

typealias RowValues = [String: StoredValue]

/// A compilable expression whose output is a Bool: its closure, without a cast per row.
protocol RowCondition {
  func condition(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)?
}

/// Finds the attribute a predicate's key path reads, by reading it on a scratch object loaded
/// with a row: the attribute wrapper reports its own key path and the attribute's name, and the
/// key path counts only if it is that wrapper's own (`\Book.pages`, not a computed property that
/// reads `pages`).
final class PredicateCompiler {
  private let probe: ManagedObject
  private var seen: [(keyPath: AnyKeyPath, name: String?)] = []

  init(probe: ManagedObject) {
    self.probe = probe
  }

  /// Called by the property wrappers while this compiler reads through `probe` (lock held).
  func saw(_ keyPath: AnyKeyPath, attribute name: String?) {
    seen.append((keyPath, name))
  }

  /// The name of the attribute `keyPath` is the wrapper of, or nil.
  func attribute(for keyPath: AnyKeyPath) -> String? {
    seen = []
    probe.compiler = self
    defer { probe.compiler = nil }
    guard type(of: probe) == type(of: keyPath).rootType, probe[keyPath: keyPath] != nil,
      seen.count == 1,
      seen[0].keyPath == keyPath
    else { return nil }
    return seen[0].name
  }

  /// The predicate as a closure over a row's values, if every part of it compiles.
  func compile<Entity: ManagedObject>(
    _ predicate: Predicate<Entity>
  ) -> ((RowValues) -> Bool?)? {
    // The operators that give a Bool hand their closure over as it is; any other expression
    // (a Bool attribute alone) is cast, a row at a time.
    if let expression = predicate.expression as? any RowCondition {
      return expression.condition(self)
    }
    guard let expression = predicate.expression as? any RowCompilable else { return nil }
    return condition(expression)
  }

  private func condition<Expression: RowCompilable>(
    _ expression: Expression
  ) -> ((RowValues) -> Bool?)? {
    guard Expression.Output.self == Bool.self, let evaluate = expression.compiled(self) else {
      return nil
    }
    return { values in evaluate(values).map { $0 as! Bool } }
  }
}

/// The value a stored value holds, as `Output` (an absent value is nil, for an optional
/// attribute); nil when it holds something else, or nothing for a required attribute.
private func decode<Output>(_ stored: StoredValue?, as: Output.Type) -> Output? {
  switch stored {
  case .attribute(let value)?: value as? Output
  case nil: (Output.self as? any OptionalAttributeValue.Type)?.nilValue as? Output
  default: nil
  }
}

extension PredicateExpressions.Value: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Output?)? {
    let value = value
    return { _ in value }
  }
}

extension PredicateExpressions.KeyPath: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Output?)? {
    guard root is any RowVariable, let name = compiler.attribute(for: keyPath as AnyKeyPath)
    else { return nil }
    return { values in decode(values[name], as: Output.self) }
  }
}

extension PredicateExpressions.NilLiteral: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Wrapped??)? {
    { _ in .some(nil) }
  }
}

extension PredicateExpressions.NilCoalesce: RowCompilable
where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> RHS.Output?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    return { values in
      guard let left = lhs(values) else { return nil }
      return left ?? rhs(values)
    }
  }
}

/// `PredicateExpressions.Variable`, the predicate's input: the only root a compiled key path may
/// have.
protocol RowVariable {}
extension PredicateExpressions.Variable: RowVariable {}

// The operators: each compiles its operands, and gives up on a row when an operand does.

extension PredicateExpressions.Equal: RowCompilable where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    return { values in
      guard let left = lhs(values), let right = rhs(values) else { return nil }
      return left == right
    }
  }
}

extension PredicateExpressions.NotEqual: RowCompilable
where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    return { values in
      guard let left = lhs(values), let right = rhs(values) else { return nil }
      return left != right
    }
  }
}

extension PredicateExpressions.Comparison: RowCompilable
where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    let compare: (LHS.Output, LHS.Output) -> Bool =
      switch op {
      case .lessThan: (<)
      case .lessThanOrEqual: (<=)
      case .greaterThan: (>)
      case .greaterThanOrEqual: (>=)
      }
    return { values in
      guard let left = lhs(values), let right = rhs(values) else { return nil }
      return compare(left, right)
    }
  }
}

extension PredicateExpressions.Conjunction: RowCompilable
where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    return { values in
      guard let left = lhs(values) else { return nil }
      return left ? rhs(values) : false
    }
  }
}

extension PredicateExpressions.Disjunction: RowCompilable
where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    return { values in
      guard let left = lhs(values) else { return nil }
      return left ? true : rhs(values)
    }
  }
}

extension PredicateExpressions.Negation: RowCompilable where Wrapped: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? {
    guard let wrapped = wrapped.compiled(compiler) else { return nil }
    return { values in wrapped(values).map { !$0 } }
  }
}

extension PredicateExpressions.Arithmetic: RowCompilable
where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> LHS.Output?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    let operation: (LHS.Output, LHS.Output) -> LHS.Output =
      switch op {
      case .add: (+)
      case .subtract: (-)
      case .multiply: (*)
      }
    return { values in
      guard let left = lhs(values), let right = rhs(values) else { return nil }
      return operation(left, right)
    }
  }
}

extension PredicateExpressions.IntDivision: RowCompilable
where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> LHS.Output?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    return { values in
      guard let left = lhs(values), let right = rhs(values) else { return nil }
      return left / right
    }
  }
}

extension PredicateExpressions.IntRemainder: RowCompilable
where LHS: RowCompilable, RHS: RowCompilable {
  func compiled(_ compiler: PredicateCompiler) -> ((RowValues) -> LHS.Output?)? {
    guard let lhs = lhs.compiled(compiler), let rhs = rhs.compiled(compiler) else { return nil }
    return { values in
      guard let left = lhs(values), let right = rhs(values) else { return nil }
      return left % right
    }
  }
}

extension ManagedObjectContext {
  /// Whether a fetch with `predicate` judges the rows of this context's store through compiled
  /// closures (nil: there is no row to tell by). For the core's tests and benchmark; call it
  /// inside `perform`.
  package func compiles<Entity: ManagedObject>(_ predicate: Predicate<Entity>) -> Bool? {
    core.access(.fetch, entity: EntityNames.name(of: Entity.self)) { _ in
      guard let row = core.sourceRows(of: Entity.self).first else { return nil }
      let probe = row.entity.init(ObjectRegistration(core: core, id: row.id, isInserted: false))
      probe.load(row: row.values, version: row.version)
      probe.lifecycle = .scratch
      return core.internally { PredicateCompiler(probe: probe).compile(predicate) != nil }
    }
  }
}

extension PredicateExpressions.Equal: RowCondition where LHS: RowCompilable, RHS: RowCompilable {
  func condition(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? { compiled(compiler) }
}

extension PredicateExpressions.NotEqual: RowCondition where LHS: RowCompilable, RHS: RowCompilable {
  func condition(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? { compiled(compiler) }
}

extension PredicateExpressions.Comparison: RowCondition
where LHS: RowCompilable, RHS: RowCompilable {
  func condition(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? { compiled(compiler) }
}

extension PredicateExpressions.Conjunction: RowCondition
where LHS: RowCompilable, RHS: RowCompilable {
  func condition(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? { compiled(compiler) }
}

extension PredicateExpressions.Disjunction: RowCondition
where LHS: RowCompilable, RHS: RowCompilable {
  func condition(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? { compiled(compiler) }
}

extension PredicateExpressions.Negation: RowCondition where Wrapped: RowCompilable {
  func condition(_ compiler: PredicateCompiler) -> ((RowValues) -> Bool?)? { compiled(compiler) }
}
