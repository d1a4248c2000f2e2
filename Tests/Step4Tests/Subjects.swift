import Foundation
import ManagedObjectCore
import Step4
import Step4Solution
import Testing
import WorkshopSupport

// Code that has to run on each side's own CoreDataActor. A global actor is a type, so what runs
// on it is written once per side; the checks themselves are written once, in Step4Tests.swift.

/// What the checks use of the talk's final controller.
protocol Controller: AnyObject, Sendable {
  func configure(name: String) async throws
  func rename(to newName: String) async throws
  func name() async -> String?
  func delete() async throws
}

extension Step4.CoreDataController: Controller {}
extension Step4Solution.CoreDataController: Controller {}

/// A default actor to hop to and back.
actor Visitor {
  func ping() -> Int { 1 }

  /// Create, read, update and delete through the controller, from this other actor.
  func useController(_ controller: any Controller, name: String) async throws -> String? {
    try await controller.configure(name: name)
    try await controller.rename(to: name + " renamed")
    let renamed = await controller.name()
    try await controller.delete()
    return renamed
  }
}

/// One side under test.
struct Subject: Sendable, CustomTestStringConvertible {
  let side: ExamSide
  let container: @Sendable () -> PersistentContainer
  let makeController: @Sendable () -> any Controller
  let storedNames: @Sendable () async throws -> [String]
  /// Where, on the actor, the code found itself off the context's queue.
  let placesOffTheQueue: @Sendable (Visitor) async -> [String]
  /// Whether two jobs of the actor ever ran at once (they meet at a barrier only if so).
  let jobsOverlap: @Sendable () async -> Bool
  /// Increments a counter on the actor `count` times from concurrent tasks; the final value.
  let increments: @Sendable (Int) async throws -> Int
  /// A new executor of this side's type, on a context of its own.
  let makeExecutor: @Sendable (String) -> any SerialExecutor
  /// The executor's answer to `isIsolatingCurrentContext()` inside and outside `perform`.
  let isolationAnswers: @Sendable () async -> (inside: Bool?, outside: Bool?)

  var testDescription: String { side.rawValue }

  static let all: [Subject] = [
    Subject(
      side: .yours, container: { Step4.ContextContainer.shared.persistentContainer },
      makeController: { Step4.CoreDataController() },
      storedNames: {
        try await WorkshopSupport.storedNames(
          of: Step4.CoreDataEntity.self, in: Step4.ContextContainer.shared.persistentContainer)
      },
      placesOffTheQueue: { await Yours.placesOffTheQueue($0) },
      jobsOverlap: { await twoJobsMeet(Yours.meet) },
      increments: { try await Yours.increments($0) },
      makeExecutor: { Step4.CoreDataExecutor(container: Step4.ContextContainer(name: $0)) },
      isolationAnswers: {
        await askIsolation(
          of: Step4.CoreDataExecutor.shared, perform: Step4.ContextContainer.shared.perform)
      }),
    Subject(
      side: .solution, container: { Step4Solution.ContextContainer.shared.persistentContainer },
      makeController: { Step4Solution.CoreDataController() },
      storedNames: {
        try await WorkshopSupport.storedNames(
          of: Step4Solution.CoreDataEntity.self,
          in: Step4Solution.ContextContainer.shared.persistentContainer)
      },
      placesOffTheQueue: { await Solution.placesOffTheQueue($0) },
      jobsOverlap: { await twoJobsMeet(Solution.meet) },
      increments: { try await Solution.increments($0) },
      makeExecutor: {
        Step4Solution.CoreDataExecutor(container: Step4Solution.ContextContainer(name: $0))
      },
      isolationAnswers: {
        await askIsolation(
          of: Step4Solution.CoreDataExecutor.shared,
          perform: Step4Solution.ContextContainer.shared.perform)
      }),
  ]
}

/// Two jobs of the actor meet at a barrier only if they run at the same time.
func twoJobsMeet(_ meet: @escaping @Sendable (Barrier) async -> Bool) async -> Bool {
  let barrier = Barrier(parties: 2)
  async let first = meet(barrier)
  async let second = meet(barrier)
  let (met, metToo) = await (first, second)
  return met && metToo
}

/// What `executor` answers to `isIsolatingCurrentContext()` inside a block of `perform`, and
/// outside any.
func askIsolation(
  of executor: some SerialExecutor,
  perform: (@escaping @Sendable () -> Void) -> Void
) async -> (inside: Bool?, outside: Bool?) {
  let inside = await withCheckedContinuation { continuation in
    perform { continuation.resume(returning: executor.isIsolatingCurrentContext()) }
  }
  return (inside, executor.isIsolatingCurrentContext())
}

/// How long a job waits at the barrier for the other one.
private let meetingTimeout: Duration = .milliseconds(500)

enum Yours {
  @Step4.CoreDataActor
  static func placesOffTheQueue(_ visitor: Visitor) async -> [String] {
    var off: [String] = []
    func look(_ place: String) {
      if !Step4.ContextContainer.shared.isOnContextQueue { off.append(place) }
    }
    look("at the start of a job")
    await Task.yield()
    look("after Task.yield()")
    _ = await visitor.ping()
    look("after a call to another actor")
    let child = await Task { @Step4.CoreDataActor in
      Step4.ContextContainer.shared.isOnContextQueue
    }.value
    if !child { off.append("in a task started on the actor") }
    look("after awaiting that task")
    return off
  }

  @Step4.CoreDataActor
  static func meet(_ barrier: Barrier) -> Bool {
    barrier.arriveAndWait(timeout: meetingTimeout)
  }

  @Step4.CoreDataActor
  final class Tally {
    var value = 0

    func increment() {
      let read = value
      value = read + 1
    }
  }

  static func increments(_ count: Int) async throws -> Int {
    let tally = Tally()
    try await concurrently(count, "increments on CoreDataActor") { _ in await tally.increment() }
    return await tally.value
  }

}

enum Solution {
  @Step4Solution.CoreDataActor
  static func placesOffTheQueue(_ visitor: Visitor) async -> [String] {
    var off: [String] = []
    func look(_ place: String) {
      if !Step4Solution.ContextContainer.shared.isOnContextQueue { off.append(place) }
    }
    look("at the start of a job")
    await Task.yield()
    look("after Task.yield()")
    _ = await visitor.ping()
    look("after a call to another actor")
    let child = await Task { @Step4Solution.CoreDataActor in
      Step4Solution.ContextContainer.shared.isOnContextQueue
    }.value
    if !child { off.append("in a task started on the actor") }
    look("after awaiting that task")
    return off
  }

  @Step4Solution.CoreDataActor
  static func meet(_ barrier: Barrier) -> Bool {
    barrier.arriveAndWait(timeout: meetingTimeout)
  }

  @Step4Solution.CoreDataActor
  final class Tally {
    var value = 0

    func increment() {
      let read = value
      value = read + 1
    }
  }

  static func increments(_ count: Int) async throws -> Int {
    let tally = Tally()
    try await concurrently(count, "increments on CoreDataActor") { _ in await tally.increment() }
    return await tally.value
  }

}

/// An actor with an executor of either side's type, for two actors that call each other.
actor Peer {
  private let executor: any SerialExecutor
  private var partner: Peer?

  init(executor: any SerialExecutor) {
    self.executor = executor
  }

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  func pair(with partner: Peer) {
    self.partner = partner
  }

  /// Waits until the partner's job runs too, then calls the partner: both jobs hold their
  /// executors while they call each other.
  func callPartner(meeting barrier: Barrier) async -> Bool {
    let met = barrier.arriveAndWait(timeout: .seconds(10))
    _ = await partner?.answer()
    return met
  }

  func answer() -> Int { 1 }
}
