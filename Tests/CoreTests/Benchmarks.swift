import Dispatch
import Foundation
import ManagedObjectCore
import Testing
import WorkshopEnvironment
import WorkshopSupport

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
  .enabled(if: WorkshopEnvironment.isOn(WorkshopEnvironment.bench)),
  .oneBenchmarkAtATime
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

  /// A measurement next to its target, and whether it meets it.
  private static func report(_ name: String, _ value: String, target: String, met: Bool) {
    let column = value.padding(toLength: max(value.count, 12), withPad: " ", startingAt: 0)
    report(name, "\(column) target \(target): \(met ? "met" : "NOT MET")")
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
    let ratio = performMedian / bareMedian
    Self.report("ratio", String(format: "%.2fx", ratio), target: "≤ 2.0x", met: ratio <= 2)
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
    Self.report("ratio", String(format: "%.2fx", on / off), target: "≤ 3.0x", met: on / off <= 3)
  }

  /// Memory growth over a workload, on Linux. Freed heap pages are handed back to the system
  /// first (`malloc_trim`), so that growth counts the workload's allocations rather than the
  /// reuse of what earlier tests freed; the peak is reset (`/proc/self/clear_refs`), so it is
  /// this workload's. Resident memory comes from `/proc/self/statm`, the peak from `VmHWM` in
  /// `/proc/self/status`. Elsewhere both are nil, and the process's peak is reported instead.
  private struct MemoryGrowth {
    private let start: Double?

    init() {
      #if os(Linux)
        // glibc's `malloc_trim`, which the Glibc module does not declare.
        if let trim = dlsym(nil, "malloc_trim") {
          _ = unsafeBitCast(trim, to: (@convention(c) (Int) -> Int32).self)(0)
        }
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
      #endif
      start = Self.residentMiB()
    }

    /// Resident memory now, over the start, in MiB.
    var resident: Double? {
      guard let start, let now = Self.residentMiB() else { return nil }
      return now - start
    }

    /// The peak resident memory since the start, over the start, in MiB.
    var peak: Double? {
      guard let start, let peak = Self.peakMiB() else { return nil }
      return peak - start
    }

    private static func residentMiB() -> Double? {
      #if os(Linux)
        if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = Double(statm.split(separator: " ").dropFirst().first ?? "")
        {
          return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
        }
      #endif
      return nil
    }

    private static func peakMiB() -> Double? {
      #if os(Linux)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
          let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        {
          return kilobytes / 1024
        }
      #endif
      return nil
    }

    /// "peak +X MiB, resident +Y MiB", or the process's peak where growth is not measured.
    var summary: String {
      guard let peak, let resident else {
        return String(format: "process peak %.0f MiB", Benchmarks.peakMemoryMiB())
      }
      return String(format: "peak +%.0f MiB, resident +%.0f MiB", peak, resident)
    }
  }

  /// Runs `body` in a fresh container and reports its time and memory growth.
  private static func measureInsert(
    _ name: String, _ body: @Sendable (ManagedObjectContext) throws -> Void
  ) throws -> Double {
    let container = PersistentContainer(name: "bench")
    let context = container.newBackgroundContext()
    let memory = MemoryGrowth()
    let elapsed = try clock.measure { try context.performAndWait { try body(context) } }
    let count = try context.performAndWait { try context.count(for: FetchRequest<Counter>()) }
    precondition(count == 100_000, "\(name) stored \(count) rows")
    report(name, String(format: "%.3f s, ", seconds(elapsed)) + memory.summary)
    return seconds(elapsed)
  }

  /// The target was 5x while the core reflected on every object it made. Objects are cheap to make
  /// now: one by one takes 3 to 4 times as long as a batch here, and the target leaves room for a
  /// noisy machine. WWDC20's device figures differ more (a real store also prepares change
  /// notifications and SQL for each object); the point is the same: a batch insert makes no
  /// objects, so it is faster and leaner.
  @Test("WWDC20: 100,000 inserts one by one vs batch inserts (target: batch at least 2x faster)")
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
    let speedUps = (oneByOne / dictionaries, oneByOne / handler)
    Self.report(
      "speed-up, dictionaries / handler", String(format: "%.1fx / %.1fx", speedUps.0, speedUps.1),
      target: "≥ 2x", met: min(speedUps.0, speedUps.1) >= 2)
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
    let memory = MemoryGrowth()
    let insert = try Self.clock.measure {
      try writer.performAndWait {
        for index in 0..<count {
          let counter = Counter(context: writer)
          counter.value = index
        }
        try writer.save()
      }
    }
    let insertSeconds = Self.seconds(insert)
    Self.report(
      "insert + save 100,000 objects", String(format: "%.3f s", insertSeconds),
      target: "≤ 0.7 s", met: insertSeconds <= 0.7)
    // The peak counts what the save holds for a moment too; it bounds the resident growth.
    if let peak = memory.peak, let resident = memory.resident {
      Self.report(
        "  memory growth, peak (resident after)",
        String(format: "+%.0f MiB (+%.0f)", peak, resident), target: "≤ +100 MiB",
        met: peak <= 100)
    } else {
      Self.report("  memory", memory.summary)
    }

    let reader = container.newBackgroundContext()
    var matched = 0
    let fetch = try Self.clock.measure {
      matched = try reader.performAndWait {
        try reader.fetch(FetchRequest<Counter>(predicate: #Predicate { $0.value % 10 == 0 })).count
      }
    }
    precondition(matched == count / 10)
    let fetchSeconds = Self.seconds(fetch)
    Self.report(
      "predicate fetch over 100,000 (fresh context, 10% hit)",
      String(format: "%.3f s", fetchSeconds), target: "≤ 0.1 s", met: fetchSeconds <= 0.1)

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
