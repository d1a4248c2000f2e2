import ManagedObjectCore

/// Where and how a program first disagreed with the model.
struct ModelFailure: Sendable, CustomStringConvertible {
  var step: Int
  var operation: String
  var problem: String

  var description: String { "after step \(step + 1) (\(operation)):\n  \(problem)" }
}

extension Program {
  /// Runs the program against a fresh core and the model side by side, checking after every
  /// step. Steps the model does not allow at that point (after the shrinker dropped the steps
  /// they needed) are skipped.
  func run() async -> ModelFailure? {
    var model = self.model
    let world = CoreWorld(topology, retainsRegisteredObjects: retainsRegisteredObjects)
    for (step, operation) in operations.enumerated() where model.allows(operation, in: topology) {
      let succeeds = model.apply(operation)
      let error = await world.run(operation)
      func failure(_ problem: String) -> ModelFailure {
        ModelFailure(step: step, operation: operation.description, problem: problem)
      }
      switch (succeeds, error) {
      case (true, let error?): return failure("it threw \(error); the model expected no error")
      case (false, nil): return failure("it succeeded; the model expected a merge conflict")
      default: break
      }
      if let problem = await world.check(against: &model) {
        return failure(problem)
      }
    }
    return nil
  }

  /// The program without the steps the model skips, numbered as it ran.
  var applicable: Program {
    var model = self.model
    var kept: [Operation] = []
    for operation in operations where model.allows(operation, in: topology) {
      _ = model.apply(operation)
      kept.append(operation)
    }
    return Program(
      seed: seed, topology: topology, retainsRegisteredObjects: retainsRegisteredObjects,
      operations: kept)
  }
}
