// PROBE: compiles
// Ported from the 2024 talk (2024 talk, slides 31–33): a main-actor cell keeps the fetched exam result and adds
// 10 to its score. The slide shows the same "cannot cross actor boundary" error as slide 27
// (2024 talk, slide 33); today it compiles without a warning, for the same reason (SE-0414: the
// result of the nonisolated call is a fresh region, and the cell's main-actor state takes it).
// The object belongs to the background context that fetched it: every later read or write of
// `score` on the main actor is a violation only the confinement checker reports. The talk's
// answer still stands: return a Sendable value or an ID, and look the object up on the main
// context (2024 talk, slides 30 and 35–37).
import ManagedObjectCore
import Subject

let container = PersistentContainer(name: "exam-results")

func fetchFirstResult() async throws -> ExamResult? {
  let context = container.newBackgroundContext()
  return try await context.perform {
    try context.fetch(FetchRequest<ExamResult>()).first
  }
}

@MainActor
final class ExamResultCell {
  var result: ExamResult?

  func fetch() async throws {
    result = try await fetchFirstResult()
  }

  func incrementScore() {
    result?.score += 10
  }
}
