// PROBE: fails: Sendable
// Returning a managed object from a read does not compile: blocks return Sendable values only.
import ManagedObjectCore
import Subject

func leak(_ scheduler: ReadWriteScheduler) async throws -> ExamResult? {
  try await scheduler.executeRead { context in
    try context.fetch(FetchRequest<ExamResult>()).first
  }
}
