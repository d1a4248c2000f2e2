import Dispatch
import Foundation
import ManagedObjectCore
import Testing

#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#endif

/// The core's cost, measured, not asserted: timing assertions are flaky on shared machines.
/// Run in release: `WORKSHOP_BENCH=1 swift test -c release --filter Benchmarks`.
@Suite(
  "Benchmarks (WORKSHOP_BENCH=1, release)",
  .serialized,
  .enabled(if: ProcessInfo.processInfo.environment["WORKSHOP_BENCH"] == "1")
)
struct Benchmarks {
  private static let clock = ContinuousClock()

  private static func seconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) + Double(attoseconds) / 1e18
  }

  private static func report(_ name: String, _ value: String) {
    print("BENCH  \(name.padding(toLength: 52, withPad: " ", startingAt: 0)) \(value)")
  }

  /// Peak resident memory of the process so far, in MiB.
  private static func peakMemoryMiB() -> Double {
    var usage = rusage()
    #if canImport(Darwin)
      getrusage(RUSAGE_SELF, &usage)
      return Double(usage.ru_maxrss) / 1_048_576  // bytes on Darwin
    #else
      getrusage(RUSAGE_SELF.rawValue, &usage)
      return Double(usage.ru_maxrss) / 1024  // KiB on Linux
    #endif
  }

  @Test("async perform round trip vs a bare DispatchQueue hop (target: within 2x)")
  func performRoundTrip() async {
    let iterations = 20_000
    let container = PersistentContainer(name: "bench")
    let context = container.newBackgroundContext()
    let queue = DispatchQueue(label: "bench.bare")
    func bareHop() async {
      // The same kind of continuation the core uses, so the ratio is the core's overhead.
      await withUnsafeContinuation { continuation in
        queue.async { continuation.resume() }
      }
    }
    for _ in 0..<1_000 {  // warm up both paths
      await bareHop()
      await context.perform(schedule: .enqueued) {}
    }
    let bare = await Self.clock.measure {
      for _ in 0..<iterations { await bareHop() }
    }
    let perform = await Self.clock.measure {
      for _ in 0..<iterations { await context.perform(schedule: .enqueued) {} }
    }
    let bareMicros = Self.seconds(bare) / Double(iterations) * 1e6
    let performMicros = Self.seconds(perform) / Double(iterations) * 1e6
    Self.report("DispatchQueue.async + unsafe continuation", String(format: "%.2f µs", bareMicros))
    Self.report("context.perform {} (empty block)", String(format: "%.2f µs", performMicros))
    Self.report("ratio (target ≤ 2.0)", String(format: "%.2fx", performMicros / bareMicros))
  }

  @Test("attribute read with the checker on vs off (target: within 3x)")
  func attributeRead() {
    let reads = 1_000_000
    func measure(_ policy: ConcurrencyCheckingPolicy) -> Double {
      let container = PersistentContainer(name: "bench", concurrencyChecking: policy)
      let context = container.newBackgroundContext()
      return context.performAndWait {
        let counter = Counter(context: context)
        var sum = 0
        let elapsed = Self.clock.measure {
          for _ in 0..<reads { sum &+= counter.value }
        }
        precondition(sum == 0)
        return Self.seconds(elapsed) / Double(reads) * 1e9
      }
    }
    let off = measure(.off)
    let on = measure(.record)
    Self.report("attribute read, checker off", String(format: "%.1f ns", off))
    Self.report("attribute read, checker on (record)", String(format: "%.1f ns", on))
    Self.report("ratio (target ≤ 3.0)", String(format: "%.2fx", on / off))
  }

  @Test("insert and save 100,000 objects, then fetch them with a predicate")
  func insertSaveFetch() throws {
    let count = 100_000
    let container = PersistentContainer(name: "bench")
    let writer = container.newBackgroundContext()
    let insert = try Self.clock.measure {
      try writer.performAndWait {
        for index in 0..<count {
          let counter = Counter(context: writer)
          counter.value = index
        }
        try writer.save()
      }
    }
    Self.report("insert + save 100,000 objects", String(format: "%.3f s", Self.seconds(insert)))

    let reader = container.newBackgroundContext()
    var matched = 0
    let fetch = try Self.clock.measure {
      matched = try reader.performAndWait {
        try reader.fetch(FetchRequest<Counter>(predicate: #Predicate { $0.value % 10 == 0 })).count
      }
    }
    precondition(matched == count / 10)
    Self.report(
      "predicate fetch over 100,000 (fresh context, 10% hit)",
      String(format: "%.3f s", Self.seconds(fetch)))

    let again = try Self.clock.measure {
      matched = try writer.performAndWait {
        try writer.fetch(FetchRequest<Counter>(predicate: #Predicate { $0.value % 10 == 0 })).count
      }
    }
    Self.report(
      "predicate fetch over 100,000 (all registered)",
      String(format: "%.3f s", Self.seconds(again)))
    Self.report("peak memory of the process", String(format: "%.0f MiB", Self.peakMemoryMiB()))
  }
}
