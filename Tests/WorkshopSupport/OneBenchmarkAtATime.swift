import Testing

/// Runs the benchmarks of the whole process one at a time. Swift Testing runs the suites of
/// different test targets side by side, so `swift test --filter Benchmarks` would otherwise
/// time the core's inserts while Step 6's workers count notes on the same two cores, and each
/// figure would measure the others.
public struct OneBenchmarkAtATime: SuiteTrait, TestTrait, TestScoping {
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    // The suite's own scope holds no turn: its tests take theirs one by one.
    guard !test.isSuite else { return try await function() }
    await BenchmarkTurns.shared.take()
    do {
      try await function()
    } catch {
      await BenchmarkTurns.shared.give()
      throw error
    }
    await BenchmarkTurns.shared.give()
  }
}

extension Trait where Self == OneBenchmarkAtATime {
  /// One benchmark at a time in the process, whatever suite or test target it is in.
  public static var oneBenchmarkAtATime: Self { OneBenchmarkAtATime() }
}

/// Whose turn it is: first come, first served; waiting suspends, it never blocks a thread.
private actor BenchmarkTurns {
  static let shared = BenchmarkTurns()
  private var taken = false
  private var waiting: [CheckedContinuation<Void, Never>] = []

  func take() async {
    guard taken else {
      taken = true
      return
    }
    await withCheckedContinuation { waiting.append($0) }
  }

  func give() {
    if waiting.isEmpty {
      taken = false
    } else {
      waiting.removeFirst().resume()
    }
  }
}
