import Foundation
import ManagedObjectCore

/// The app code of the 2024 talk, on the scheduler: read-modify-write of a score, and reads
/// (2024 talk, slides 7 and 44).
nonisolated public struct ScoreBoard: Sendable {
  public let scheduler: ReadWriteScheduler

  public init(scheduler: ReadWriteScheduler) {
    self.scheduler = scheduler
  }

  /// Creates a result with score 0.
  public func enroll(_ name: String) async throws {
    try await scheduler.executeWrite { context in
      ExamResult(context: context).name = name
      try context.save()
    }
  }

  /// Adds `points` to the score of `name`: a read-modify-write, which must not lose updates.
  public func addPoints(_ points: Int, to name: String) async throws {
    try await scheduler.executeWrite { context in
      let result = try Self.result(named: name, in: context)
      result.score += points
      try context.save()
    }
  }

  /// The score of `name`.
  public func score(of name: String) async throws -> Int {
    try await scheduler.executeRead { context in
      try Self.result(named: name, in: context).score
    }
  }

  static func result(named name: String, in context: ManagedObjectContext) throws -> ExamResult {
    let request = FetchRequest<ExamResult>(predicate: #Predicate { $0.name == name })
    guard let result = try context.fetch(request).first else {
      throw PersistenceError.invalidFetch("no exam result named \(name)")
    }
    return result
  }
}
