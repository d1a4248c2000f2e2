import Foundation
import ManagedObjectCore
import Step6
import Step6Solution
import Testing
import WorkshopSupport

/// What the checks use of a model actor; yours and the solution share this API.
protocol Handler: Actor {
  func addNote(_ text: String) throws -> ManagedObjectID
  func text(of id: ManagedObjectID) -> String?
  func rename(_ id: ManagedObjectID, to text: String) throws -> Bool
  func delete(_ id: ManagedObjectID) throws
  func count() throws -> Int
  func isOnOwnQueue() -> Bool
  /// The actor's `modelExecutor`, to ask it the runtime's isolation questions.
  nonisolated var executor: any SerialExecutor { get }
  /// The context the actor's executor runs on, compared, or made read-only (a thread-safe
  /// setting), by the checks: never used.
  nonisolated var context: ManagedObjectContext { get }
  /// `copyNote(_:from:)`, with a source of the same side.
  func copyNote(_ id: ManagedObjectID, fromHandler source: any Handler) async throws
    -> ManagedObjectID?
}

/// Thrown when a check mixes the two sides: it never does.
struct SidesMixed: Error {}

extension Step6.DataHandler: Handler {
  nonisolated var executor: any SerialExecutor { modelExecutor }
  nonisolated var context: ManagedObjectContext { modelExecutor.context }
  func copyNote(_ id: ManagedObjectID, fromHandler source: any Handler) async throws
    -> ManagedObjectID?
  {
    guard let source = source as? Step6.DataHandler else { throw SidesMixed() }
    return try await copyNote(id, from: source)
  }
}
extension Step6Solution.DataHandler: Handler {
  nonisolated var executor: any SerialExecutor { modelExecutor }
  nonisolated var context: ManagedObjectContext { modelExecutor.context }
  func copyNote(_ id: ManagedObjectID, fromHandler source: any Handler) async throws
    -> ManagedObjectID?
  {
    guard let source = source as? Step6Solution.DataHandler else { throw SidesMixed() }
    return try await copyNote(id, from: source)
  }
}

/// What the checks use of one side; its side and module are on ``ExamSubject``.
struct Step6API: Sendable {
  let make: @Sendable (PersistentContainer) -> any Handler
  /// The text of a note as the view context sees it, through the main-queue handler.
  let mainText: @MainActor @Sendable (PersistentContainer, ManagedObjectID) -> String?
  /// The texts of every saved note of this side's `Note` class, read by a fresh context: the
  /// core's fetches select rows by class, and each side has a `Note` of its own.
  let storedTexts: @Sendable (PersistentContainer) async throws -> [String]
}

/// One side under test.
typealias Subject = ExamSubject<Step6API>

extension Step6API: ExamAPI {
  static var subjects: [Subject] {
    Subject.sides(
      "Step6",
      yours: Step6API(
        make: { Step6.DataHandler(modelContainer: $0) },
        mainText: { Step6.MainDataHandler(modelContainer: $0).text(of: $1) },
        storedTexts: { try await storedNoteTexts(Step6.Note.self, in: $0) }),
      solution: Step6API(
        make: { Step6Solution.DataHandler(modelContainer: $0) },
        mainText: { Step6Solution.MainDataHandler(modelContainer: $0).text(of: $1) },
        storedTexts: { try await storedNoteTexts(Step6Solution.Note.self, in: $0) }))
  }
}

/// The texts of every saved `Entity` (a side's `Note`), read as dictionaries, in order.
func storedNoteTexts<Entity: ManagedObject>(_: Entity.Type, in container: PersistentContainer)
  async throws -> [String]
{
  try await container.performBackgroundTask { context in
    let request = FetchRequest<Entity>()
    request.propertiesToFetch = [.attribute("text")]
    return try context.fetchDictionaries(request).compactMap { $0["text"] as? String }.sorted()
  }
}

/// A default actor to hop to and back.
actor Visitor {
  func ping() -> Int { 1 }
}

/// Runs on `handler`: where the job found itself off its context's queue, across awaits.
func placesOffTheQueue(on handler: isolated some Handler, visitor: Visitor) async -> [String] {
  var off: [String] = []
  if !handler.isOnOwnQueue() { off.append("at the start of a job") }
  await Task.yield()
  if !handler.isOnOwnQueue() { off.append("after Task.yield()") }
  _ = await visitor.ping()
  if !handler.isOnOwnQueue() { off.append("after a call to another actor") }
  return off
}

/// Runs on `handler`: waits at `barrier` for a job of another actor, unless this job runs on
/// its context's queue and `partner`'s jobs go to that very queue (``sharedQueue(_:_:)``): a
/// serial queue runs one job at a time, so the partner's job cannot start while this one waits,
/// and waiting out the bound would only show it 3 s later.
func meet(on handler: isolated some Handler, _ barrier: Barrier, partner: some Handler) -> Bool {
  if handler.isOnOwnQueue(), sharedQueue(handler, partner) != nil { return false }
  // Stretched under the sanitizers, where only solutions run: two model actors that run side by
  // side always meet.
  return barrier.arriveAndWait(timeout: .seconds(3) * timeScale)
}

/// Runs on `handler`: once the partner's job runs too (or, as in ``meet(on:_:partner:)``, when
/// it cannot while this one waits), calls the partner.
func callPartner(
  on handler: isolated some Handler, partner: some Handler, meeting barrier: Barrier
) async throws -> Int {
  if !(handler.isOnOwnQueue() && sharedQueue(handler, partner) != nil) {
    _ = barrier.arriveAndWait(timeout: .seconds(3) * timeScale)
  }
  return try await partner.count()
}

/// The one queue two model actors' executors run their jobs on, in words, or nil when each
/// has its own: one context for both, or two contexts on the main queue. Read from the
/// contexts' thread-safe properties, which no job changes.
func sharedQueue(_ one: some Handler, _ other: some Handler) -> String? {
  if one.context === other.context {
    return "both run on one context, '\(one.context.name ?? "unnamed")'"
  }
  if one.context.concurrencyType == .mainQueue, other.context.concurrencyType == .mainQueue {
    return "both run on main-queue contexts, whose queue is the main queue"
  }
  return nil
}

/// Another entity, for an ID of the wrong type.
final class Label: ManagedObject {
  @Attribute var title: String = ""
}
