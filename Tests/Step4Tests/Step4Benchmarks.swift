import Foundation
import ManagedObjectCore
import Step4Solution
import Testing
import WorkshopEnvironment
import WorkshopSupport

/// The price of the hop into CoreDataActor, measured, not asserted.
/// Run in release: `WORKSHOP_BENCH=1 swift test -c release --filter Benchmarks`.
@Suite(
  "Step4Benchmarks (WORKSHOP_BENCH=1, release)",
  .serialized,
  .enabled(if: WorkshopEnvironment.isOn(WorkshopEnvironment.bench)),
  .oneBenchmarkAtATime
)
struct Step4Benchmarks {
  // Both touch their actor's state: a call that needs no isolation may be optimized into no hop.
  actor DefaultActor {
    var count = 0

    func bump() { count += 1 }
  }

  @CoreDataActor
  final class Counter {
    static let shared = Counter()
    var count = 0

    func bump() { count += 1 }
  }

  static func microseconds(_ duration: Duration, per iterations: Int) -> Double {
    let (seconds, attoseconds) = duration.components
    return (Double(seconds) + Double(attoseconds) / 1e18) / Double(iterations) * 1e6
  }

  static func report(_ name: String, _ value: String) {
    print("BENCH  \(name.padding(toLength: 56, withPad: " ", startingAt: 0)) \(value)")
  }

  /// Medians of each measurement, taken in alternation: single runs are noisy.
  @MainActor
  static func medians(
    rounds: Int, iterations: Int, _ bodies: [@MainActor () async -> Void]
  ) async -> [Double] {
    let clock = ContinuousClock()
    var samples = Array(repeating: [Double](), count: bodies.count)
    for _ in 0..<rounds {
      for (index, body) in bodies.enumerated() {
        let elapsed = await clock.measure { for _ in 0..<iterations { await body() } }
        samples[index].append(microseconds(elapsed, per: iterations))
      }
    }
    return samples.map { $0.sorted()[rounds / 2] }
  }

  @Test("An await into CoreDataActor vs into a default actor vs a perform (target: within 2x)")
  @MainActor
  func hops() async {
    let plain = DefaultActor()
    let context = PersistentContainer(name: "bench").newBackgroundContext()
    // From the main actor every one of these leaves the thread and comes back: a fair race.
    let fromMain = await Self.medians(
      rounds: 15, iterations: 2_000,
      [
        { await Counter.shared.bump() },
        { await plain.bump() },
        { await context.perform(schedule: .enqueued) {} },
      ])
    Self.report(
      "from the main actor: await into CoreDataActor", String(format: "%.2f µs", fromMain[0]))
    Self.report(
      "from the main actor: await into a default actor", String(format: "%.2f µs", fromMain[1]))
    Self.report(
      "from the main actor: await context.perform {}", String(format: "%.2f µs", fromMain[2]))
    Self.report(
      "CoreDataActor / default actor (target ≤ 2.0)",
      String(format: "%.2fx", fromMain[0] / fromMain[1]))
    // From a task on the pool, a default actor runs on the caller's thread: no hop at all.
    let fromPool = await Task.detached {
      let clock = ContinuousClock()
      let iterations = 2_000
      let custom = await clock.measure {
        for _ in 0..<iterations { await Counter.shared.bump() }
      }
      let plainHop = await clock.measure { for _ in 0..<iterations { await plain.bump() } }
      return (
        Self.microseconds(custom, per: iterations), Self.microseconds(plainHop, per: iterations)
      )
    }.value
    Self.report(
      "from the pool: CoreDataActor / default actor",
      String(format: "%.2f µs / %.2f µs", fromPool.0, fromPool.1))
  }
}
