import Foundation
import ManagedObjectCore
import Step6Solution
import Testing
import WorkshopEnvironment
import WorkshopSupport

/// Steps 3–4's road, built from this step's parts: one global actor with one context for all.
@globalActor
actor OneStore: ModelActor {
  static let shared = OneStore(modelContainer: PersistentContainer(name: "one-store"))

  nonisolated let modelContainer: PersistentContainer
  nonisolated let modelExecutor: ModelActorExecutor

  init(modelContainer: PersistentContainer) {
    modelExecutor = ModelActorExecutor(context: modelContainer.newBackgroundContext())
    self.modelContainer = modelContainer
  }
}

/// The same work on any model actor: insert `count` notes, saving every 30.
func insertNotes(on actor: isolated some ModelActor, _ count: Int) throws {
  for index in 0..<count {
    Note(context: actor.modelContext).text = "note \(index)"
    if index % 30 == 29 { try actor.modelContext.save() }
  }
  try actor.modelContext.save()
}

/// The same reads on any model actor: `count` predicate fetches over the saved notes.
func countNotes(on actor: isolated some ModelActor, _ count: Int) throws -> Int {
  var total = 0
  for index in 0..<count {
    let wanted = "note \(index % 100)"
    total += try actor.modelContext.count(
      for: FetchRequest<Note>(predicate: #Predicate { $0.text == wanted }))
  }
  return total
}

/// Waits at `barrier` on any model actor.
func meetAt(_ barrier: Barrier, on actor: isolated some ModelActor) -> Bool {
  barrier.arriveAndWait(timeout: .milliseconds(300))
}

/// Not an exam: the contrast the step is about (slides/06-model-actor.md, "Side by side").
@Suite("Step 6 — one global actor, for contrast")
struct OneGlobalActorContrast {
  @Test("Two jobs of one global actor never run at the same time; two model actors do")
  func contrast() async {
    let barrier = Barrier(parties: 2)
    let job = { @Sendable in await meetAt(barrier, on: OneStore.shared) }
    let (met, metToo) = await sideBySide(job, job)
    #expect(!(met && metToo), "two jobs of one global actor ran at once")

    let container = PersistentContainer(name: "contrast")
    let first = DataHandler(modelContainer: container)
    let second = DataHandler(modelContainer: container)
    let together = Barrier(parties: 2)
    let (metAgain, metAgainToo) = await sideBySide(
      { await meetAt(together, on: first) }, { await meetAt(together, on: second) })
    #expect(metAgain && metAgainToo, "two model actors did not run at once")
  }
}

/// The same workload through one global actor and through several model actors.
/// Run in release: `WORKSHOP_BENCH=1 swift test -c release --filter Benchmarks`.
@Suite(
  "Step6Benchmarks (WORKSHOP_BENCH=1, release)",
  .serialized,
  .enabled(if: WorkshopEnvironment.isOn(WorkshopEnvironment.bench)),
  .oneBenchmarkAtATime
)
struct Step6Benchmarks {
  @Test("4 workers inserting 3,000 notes each: one global actor vs four model actors")
  func workload() async throws {
    let workers = 4
    let notes = 3_000
    let clock = ContinuousClock()
    let global = try await clock.measure {
      try await concurrently(workers, "workers on one global actor") { _ in
        try await insertNotes(on: OneStore.shared, notes)
      }
    }
    let container = PersistentContainer(name: "bench")
    let handlers = (0..<workers).map { _ in DataHandler(modelContainer: container) }
    let modelActors = try await clock.measure {
      try await concurrently(workers, "workers on their own model actors") { index in
        try await insertNotes(on: handlers[index], notes)
      }
    }
    // Reads: every worker counts over the 12,000 saved notes, 50 times.
    let globalReads = try await clock.measure {
      try await concurrently(workers, "readers on one global actor") { _ in
        _ = try await countNotes(on: OneStore.shared, 50)
      }
    }
    let modelActorReads = try await clock.measure {
      try await concurrently(workers, "readers on their own model actors") { index in
        _ = try await countNotes(on: handlers[index], 50)
      }
    }
    func seconds(_ duration: Duration) -> Double {
      let (seconds, attoseconds) = duration.components
      return Double(seconds) + Double(attoseconds) / 1e18
    }
    for (name, value) in [
      ("one global actor, 4 workers × 3,000 inserts", String(format: "%.3f s", seconds(global))),
      (
        "four model actors, 4 workers × 3,000 inserts",
        String(format: "%.3f s", seconds(modelActors))
      ),
      (
        "speed-up on \(ProcessInfo.processInfo.activeProcessorCount) cores, inserts",
        String(format: "%.2fx", seconds(global) / seconds(modelActors))
      ),
      ("one global actor, 4 workers × 50 counts", String(format: "%.3f s", seconds(globalReads))),
      (
        "four model actors, 4 workers × 50 counts",
        String(format: "%.3f s", seconds(modelActorReads))
      ),
      (
        "speed-up on \(ProcessInfo.processInfo.activeProcessorCount) cores, reads",
        String(format: "%.2fx", seconds(globalReads) / seconds(modelActorReads))
      ),
    ] {
      print("BENCH  \(name.padding(toLength: 56, withPad: " ", startingAt: 0)) \(value)")
    }
  }
}
