import Foundation
import ManagedObjectCore
import Step4
import Step4Solution
import Synchronization
import Testing
import WorkshopSupport

// Code that has to run on each side's own CoreDataActor. A global actor is a type, so what runs
// on it is written once per side; the checks themselves are written once, in Step4Tests.swift.

/// What the checks use of the controller: the talk's last one has `configure()` (2023 talk,
/// slides 68–69); renaming, reading and deleting are the workshop's.
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

  /// Create, read, update and delete through the controller, from this other actor: the name
  /// after the rename, and after the delete (nil: the controller let go of the object).
  func useController(
    _ controller: any Controller, name: String
  ) async throws -> (renamed: String?, afterDelete: String?) {
    try await controller.configure(name: name)
    try await controller.rename(to: name + " renamed")
    let renamed = await controller.name()
    try await controller.delete()
    return (renamed, await controller.name())
  }
}

/// What the checks use of one side; its side and module are on ``ExamSubject``.
struct Step4API: Sendable {
  let container: @Sendable () -> PersistentContainer
  let makeController: @Sendable () -> any Controller
  let storedNames: @Sendable () async throws -> [String]
  /// The side's `CoreDataActor.shared`: code isolated to it runs on the executor under test.
  let actor: any Actor
  /// Whether the current code runs on the context's queue.
  let isOnContextQueue: @Sendable () -> Bool
  /// A new executor of this side's type, on a context of its own, and that context.
  let makeExecutor: @Sendable (String) -> (any SerialExecutor, any SideContainer)
  /// The side's `CoreDataExecutor.shared`, the executor the actor names.
  let sharedExecutor: @Sendable () -> any SerialExecutor
  /// `CoreDataActor.shared` and `ContextContainer.shared`, the context its executor should use.
  let shared: ActorAndContext
  /// Another global actor on an executor of this side's type, with a context of its own.
  let spare: ActorAndContext
}

/// One side under test.
typealias Subject = ExamSubject<Step4API>

extension Step4API: ExamAPI {
  static var subjects: [Subject] {
    Subject.sides(
      "Step4",
      yours: Step4API(
        container: { Step4.ContextContainer.shared.persistentContainer },
        makeController: { Step4.CoreDataController() },
        storedNames: {
          try await WorkshopSupport.storedNames(
            of: Step4.CoreDataEntity.self, in: Step4.ContextContainer.shared.persistentContainer)
        },
        actor: Step4.CoreDataActor.shared,
        isOnContextQueue: { Step4.ContextContainer.shared.isOnContextQueue },
        makeExecutor: {
          let container = Step4.ContextContainer(name: $0)
          return (Step4.CoreDataExecutor(container: container), container)
        },
        sharedExecutor: { Step4.CoreDataExecutor.shared },
        shared: .yourCoreDataActor, spare: .yourSpare),
      solution: Step4API(
        container: { Step4Solution.ContextContainer.shared.persistentContainer },
        makeController: { Step4Solution.CoreDataController() },
        storedNames: {
          try await WorkshopSupport.storedNames(
            of: Step4Solution.CoreDataEntity.self,
            in: Step4Solution.ContextContainer.shared.persistentContainer)
        },
        actor: Step4Solution.CoreDataActor.shared,
        isOnContextQueue: { Step4Solution.ContextContainer.shared.isOnContextQueue },
        makeExecutor: {
          let container = Step4Solution.ContextContainer(name: $0)
          return (Step4Solution.CoreDataExecutor(container: container), container)
        },
        sharedExecutor: { Step4Solution.CoreDataExecutor.shared },
        shared: .solutionCoreDataActor, spare: .solutionSpare))
  }
}

extension ExamSubject where API == Step4API {
  /// Whether `CoreDataActor` names `CoreDataExecutor.shared` as its executor (else it keeps the
  /// default one, or names another).
  var executorInstalled: Bool {
    let executor = self.sharedExecutor()
    return withExtendedLifetime(executor) {
      sameExecutor(self.actor.unownedExecutor, executor.asUnownedSerialExecutor())
    }
  }

}

// Helpers that run on the actor under test. An `isolated` parameter puts their code on that
// actor, whichever side's global actor it is, so each is written once.

/// Where, on `actor`, the code found itself off the context's queue, across awaits and hops.
func placesOffTheQueue(
  on actor: isolated any Actor, isOnContextQueue: @escaping @Sendable () -> Bool,
  visitor: Visitor
) async -> [String] {
  var off: [String] = []
  func look(_ place: String) {
    if !isOnContextQueue() { off.append(place) }
  }
  look("at the start of a job")
  await Task.yield()
  look("after Task.yield()")
  _ = await visitor.ping()
  look("after a call to another actor")
  // The task captures the isolated `actor`, so it starts on the actor: a new job of its own.
  let child = await Task { isOnQueue(on: actor, isOnContextQueue) }.value
  if !child { off.append("in a task started on the actor") }
  look("after awaiting that task")
  return off
}

/// Asks, on `actor`, whether its code runs on the context's queue.
func isOnQueue(on actor: isolated any Actor, _ isOnContextQueue: @Sendable () -> Bool) -> Bool {
  isOnContextQueue()
}

/// Waits at `barrier` in a job of `actor`, when another job of the actor could run meanwhile.
/// A job that holds the context's serial queue needs no waiting: no other block of the queue
/// runs until it returns (a job run inline, nested in it, is looked at on its own).
func meet(
  on actor: isolated any Actor, _ barrier: Barrier, holdsTheQueue: @Sendable () -> Bool
) -> Bool {
  guard !holdsTheQueue() else { return false }
  return barrier.arriveAndWait(timeout: meetingTimeout)
}

/// Two jobs of `actor` meet at a barrier only if they run at the same time.
func jobsOverlap(on actor: any Actor, holdsTheQueue: @escaping @Sendable () -> Bool) async -> Bool {
  let barrier = Barrier(parties: 2)
  let job = { @Sendable in
    await meet(on: actor, barrier, holdsTheQueue: holdsTheQueue)
  }
  let (met, metToo) = await sideBySide(job, job)
  return met && metToo
}

/// True when a task started in a job of `actor` runs its first job while that job still runs:
/// `enqueue`, called from the job, ran the new job at once, nested in it.
func taskRunsInsideTheJob(on actor: isolated any Actor) async -> Bool {
  let stillRunning = Switch()
  // The task captures the isolated `actor`: Task.init hands its first job to the actor's
  // executor, from inside this job.
  let task = Task { isOn(stillRunning, on: actor) }
  stillRunning.turnOff()
  return await task.value
}

func isOn(_ flag: Switch, on actor: isolated any Actor) -> Bool { flag.isOn }

/// On until turned off, read from any thread.
final class Switch: Sendable {
  private let value = Mutex(true)

  func turnOff() { value.withLock { $0 = false } }
  var isOn: Bool { value.withLock { $0 } }
}

/// A counter that only code isolated to the actor under test reads and writes: a serial
/// executor keeps its read-then-write increments exact; one that runs jobs at once loses some.
/// That race is what the check looks for, hence `@unchecked Sendable`.
final class Tally: @unchecked Sendable {
  var value = 0
}

func increment(_ tally: Tally, on actor: isolated any Actor) {
  let read = tally.value
  tally.value = read + 1
}

/// Increments a counter on `actor` `count` times from concurrent tasks; the final value.
func increments(_ count: Int, on actor: any Actor) async throws -> Int {
  let tally = Tally()
  try await concurrently(count, "increments on CoreDataActor") { _ in
    await increment(tally, on: actor)
  }
  return tally.value
}

/// What an executor answered to `isIsolatingCurrentContext()` (SE-0471, macOS 26, the
/// package's minimum).
struct IsolationAnswers: Sendable {
  /// Inside a block of its own context's perform: yes.
  let inside: Bool?
  /// Outside any perform: no.
  let outside: Bool?
  /// Inside a block of another context's perform: no.
  let elsewhere: Bool?

  var agree: Bool { inside == true && outside == false && elsewhere == false }

  var described: String {
    "\(String(describing: inside)) inside its context's perform, \(String(describing: outside)) "
      + "outside, and \(String(describing: elsewhere)) inside another context's perform"
  }
}

/// What `place`'s executor answers inside its context's perform, outside any, and inside the
/// perform of `other`'s context.
func askIsolation(of place: ActorAndContext, other: ActorAndContext) async -> IsolationAnswers {
  let executor = place.executor
  let inside = await withCheckedContinuation { continuation in
    place.container.perform { continuation.resume(returning: executor.isIsolatingCurrentContext()) }
  }
  let elsewhere = await withCheckedContinuation { continuation in
    other.container.perform { continuation.resume(returning: executor.isIsolatingCurrentContext()) }
  }
  return IsolationAnswers(
    inside: inside, outside: executor.isIsolatingCurrentContext(), elsewhere: elsewhere)
}

/// How long a job waits at the barrier for the other one.
private let meetingTimeout: Duration = .milliseconds(500)
