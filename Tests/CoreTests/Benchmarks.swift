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
    let rounds = 15
    let iterations = 2_000
    let container = PersistentContainer(name: "bench")
    let context = container.newBackgroundContext()
    let queue = DispatchQueue(label: "bench.bare")
    func bareHop() async {
      // The same kind of continuation the core uses, so the ratio is the core's overhead.
      await withUnsafeContinuation { continuation in
        queue.async { continuation.resume() }
      }
    }
    // Thread wake-ups make single runs noisy: alternate the two, and compare medians.
    var bare: [Double] = []
    var perform: [Double] = []
    for _ in 0..<rounds {
      let b = await Self.clock.measure { for _ in 0..<iterations { await bareHop() } }
      let p = await Self.clock.measure {
        for _ in 0..<iterations { await context.perform(schedule: .enqueued) {} }
      }
      bare.append(Self.seconds(b) / Double(iterations) * 1e6)
      perform.append(Self.seconds(p) / Double(iterations) * 1e6)
    }
    let bareMedian = bare.sorted()[rounds / 2]
    let performMedian = perform.sorted()[rounds / 2]
    Self.report(
      "DispatchQueue.async + unsafe continuation (median)",
      String(format: "%.2f µs", bareMedian))
    Self.report(
      "context.perform {} (empty block, median)", String(format: "%.2f µs", performMedian))
    Self.report("ratio (target ≤ 2.0)", String(format: "%.2fx", performMedian / bareMedian))
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

  /// The peak resident memory since the last reset, in MiB. Linux can reset the peak
  /// (`/proc/self/clear_refs`); elsewhere this is the process's peak so far.
  private static func resetPeakMemory() {
    #if os(Linux)
      try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    #endif
  }

  /// A line of `/proc/self/status` in MiB (`VmHWM`: peak since the reset, `VmRSS`: now).
  private static func statusMiB(_ field: String) -> Double? {
    #if os(Linux)
      if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
        let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
      {
        return kilobytes / 1024
      }
    #endif
    return nil
  }

  /// Runs `body` in a fresh container and reports its time and peak memory.
  private static func measureInsert(
    _ name: String, _ body: @Sendable (ManagedObjectContext) throws -> Void
  ) throws -> Double {
    let container = PersistentContainer(name: "bench")
    let context = container.newBackgroundContext()
    resetPeakMemory()
    let start = statusMiB("VmRSS")
    let elapsed = try clock.measure { try context.performAndWait { try body(context) } }
    let count = try context.performAndWait { try context.count(for: FetchRequest<Counter>()) }
    precondition(count == 100_000, "\(name) stored \(count) rows")
    // Freed memory often stays with the process, so the growth over the start is the figure.
    let memory =
      if let start, let peak = statusMiB("VmHWM") {
        String(format: "peak +%.0f MiB", peak - start)
      } else {
        String(format: "process peak %.0f MiB", peakMemoryMiB())
      }
    report(name, String(format: "%.3f s, ", seconds(elapsed)) + memory)
    return seconds(elapsed)
  }

  @Test("WWDC20: 100,000 inserts one by one vs batch inserts (target: batch at least 5x faster)")
  func batchInsertComparison() throws {
    let rows = 100_000
    let oneByOne = try Self.measureInsert("insert one by one + save") { context in
      for index in 0..<rows {
        let counter = Counter(context: context)
        counter.name = "c\(index)"
        counter.value = index
      }
      try context.save()
    }
    let dictionaries = try Self.measureInsert("batch insert from dictionaries") { context in
      let objects: [[String: any AttributeValue]] = (0..<rows).map {
        ["name": "c\($0)", "value": $0]
      }
      try context.execute(BatchInsertRequest<Counter>(objects: objects))
    }
    let handler = try Self.measureInsert("batch insert with a handler block") { context in
      var index = 0
      try context.execute(
        BatchInsertRequest<Counter>(managedObjectHandler: { counter in
          guard index < rows else { return true }
          counter.name = "c\(index)"
          counter.value = index
          index += 1
          return false
        }))
    }
    Self.report(
      "speed-up, dictionaries / handler (target ≥ 5x)",
      String(format: "%.1fx / %.1fx", oneByOne / dictionaries, oneByOne / handler))
  }

  @Test("Grouped sums: a dictionary fetch vs fetching objects and grouping in Swift")
  func groupByComparison() throws {
    let container = PersistentContainer(name: "bench")
    let context = container.newBackgroundContext()
    _ = try context.performAndWait {
      try context.execute(
        BatchInsertRequest<Counter>(
          objects: (0..<100_000).map { ["name": "group \($0 % 100)", "value": $0] }))
    }
    var grouped: [String: Int] = [:]
    let dictionaries = try Self.clock.measure {
      let rows = try context.performAndWait {
        let request = FetchRequest<Counter>()
        request.propertiesToGroupBy = ["name"]
        request.propertiesToFetch = [
          .attribute("name"), .expression(name: "total", function: .sum, attribute: "value"),
        ]
        return try context.fetchDictionaries(request)
      }
      for row in rows { grouped[row["name"] as! String] = row["total"] as? Int }
    }
    let reader = container.newBackgroundContext()
    var inSwift: [String: Int] = [:]
    let objects = try Self.clock.measure {
      inSwift = try reader.performAndWait {
        var totals: [String: Int] = [:]
        for counter in try reader.fetch(FetchRequest<Counter>()) {
          totals[counter.name, default: 0] += counter.value
        }
        return totals
      }
    }
    precondition(grouped == inSwift && grouped.count == 100)
    Self.report(
      "group-by sum, dictionary fetch", String(format: "%.3f s", Self.seconds(dictionaries)))
    Self.report(
      "group-by sum, fetch objects + group in Swift",
      String(format: "%.3f s", Self.seconds(objects)))
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
