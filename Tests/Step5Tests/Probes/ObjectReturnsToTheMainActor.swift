// PROBE: compiles
// Ported from the 2024 talk (2024 talk, slides 25–27): a nonisolated async function fetches the first exam
// result in a context of its own and returns the object to the main actor, which reads `score`.
// The slide shows the error "Non-sendable type 'ExamResult?' returned by implicitly asynchronous
// call to nonisolated function cannot cross actor boundary" (2024 talk, slide 27). Swift 6 with
// region-based isolation (SE-0414) accepts it without a warning: the function has no isolated
// state of its own and no non-Sendable argument, so its result is a fresh, disconnected region
// that the main actor may take. The object still belongs to the background context: the read
// on the main actor is a wrong read, which only the confinement checker sees, at run time
// (Tests/Step5Tests/TheReturnedObject.swift). Two changes are the port's: the fetch runs in the
// context's `perform`, and `updateLabel(_:)` takes the label it sets as a parameter, where the
// slide's `updateLabel()` sets a `label` it does not declare (2024 talk, slides 25–27).
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
final class Label {
  var text = ""
}

@MainActor
func updateLabel(_ label: Label) async {
  let firstResult = try! await fetchFirstResult()!
  label.text = "Score: \(firstResult.score)"
}
