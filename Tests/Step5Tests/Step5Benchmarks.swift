import Dispatch
import Foundation
import ManagedObjectCore
import Step5Solution
import Testing
import WorkshopEnvironment
import WorkshopSupport

/// What the scheduler buys and costs, measured, not asserted.
/// Run in release: `WORKSHOP_BENCH=1 swift test -c release --filter Benchmarks`.
@Suite(
  "Step5Benchmarks (WORKSHOP_BENCH=1, release)",
  .serialized,
  .enabled(if: WorkshopEnvironment.isOn(WorkshopEnvironment.bench)),
  .oneBenchmarkAtATime
)
struct Step5Benchmarks {
  static let clock = ContinuousClock()

  static func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return (Double(seconds) + Double(attoseconds) / 1e18) * 1e3
  }

  static func report(_ name: String, _ value: String) {
    print("BENCH  \(name.padding(toLength: 56, withPad: " ", startingAt: 0)) \(value)")
  }

  /// A read that waits 50 ms, as a read stuck on I/O would: it holds a thread, not a core.
  static func slowRead(_ context: ManagedObjectContext) -> Int {
    _ = DispatchSemaphore(value: 0).wait(timeout: .now() + .milliseconds(50))
    return 1
  }

  @Test("8 concurrent reads vs the same reads one after another (target: at least 3x faster)")
  func concurrentReads() async throws {
    let scheduler = ReadWriteScheduler(container: PersistentContainer(name: "bench"))
    let oneByOne = try await Self.clock.measure {
      for _ in 0..<8 { _ = try await scheduler.executeRead(Self.slowRead) }
    }
    let together = try await Self.clock.measure {
      try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<8 { group.addTask { try await scheduler.executeRead(Self.slowRead) } }
        try await group.waitForAll()
      }
    }
    Self.report(
      "8 reads of 50 ms, one after another", String(format: "%.0f ms", Self.milliseconds(oneByOne)))
    Self.report(
      "8 reads of 50 ms, side by side", String(format: "%.0f ms", Self.milliseconds(together)))
    Self.report(
      "speed-up (target ≥ 3x)",
      String(format: "%.1fx", Self.milliseconds(oneByOne) / Self.milliseconds(together)))
  }

  actor OneActor {
    let container = PersistentContainer(name: "bench")

    func nothing() {}

    func read() async -> Int {
      let context = container.newBackgroundContext()
      return await context.perform { 1 }
    }
  }

  @Test("The scheduler's overhead per uncontended operation vs a plain actor call")
  func overhead() async throws {
    let iterations = 2_000
    let scheduler = ReadWriteScheduler(container: PersistentContainer(name: "bench"))
    let actor = OneActor()
    func perCall(_ duration: Duration) -> String {
      String(format: "%.2f µs", Self.milliseconds(duration) * 1e3 / Double(iterations))
    }
    let plain = await Self.clock.measure { for _ in 0..<iterations { await actor.nothing() } }
    let actorRead = await Self.clock.measure {
      for _ in 0..<iterations { _ = await actor.read() }
    }
    let scheduled = try await Self.clock.measure {
      for _ in 0..<iterations { _ = try await scheduler.executeRead { _ in 1 } }
    }
    Self.report("a plain actor call (empty)", perCall(plain))
    Self.report("an actor call that performs in a new context", perCall(actorRead))
    Self.report("executeRead { _ in 1 } (uncontended)", perCall(scheduled))
  }
}
