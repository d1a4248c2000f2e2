import Foundation

/// How many helper processes (the compilers of the probes and gates) may run at once.
///
/// Each one costs a core for a second or more, and the verify suite starts about seventy. All at
/// once, they slow every other check on a 2-core machine: the suite took 14 s instead of 11 s,
/// and the checker's cross-context stress round 4 s of its 10 s bound instead of 1 s (measured).
/// So they take turns, first come first served, without blocking a thread while they wait.
public actor ProcessSlots {
  /// The slots every check shares: as many as the machine has cores, at least two.
  public static let shared = ProcessSlots(
    count: max(2, ProcessInfo.processInfo.activeProcessorCount))

  private var free: Int
  private var waiting: [CheckedContinuation<Void, Never>] = []

  init(count: Int) {
    free = count
  }

  /// Runs `body` once a slot is free, and frees the slot afterwards.
  public func withSlot<Value: Sendable>(
    _ body: @Sendable () async throws -> Value
  ) async rethrows -> Value {
    if free > 0 {
      free -= 1
    } else {
      await withCheckedContinuation { waiting.append($0) }
    }
    defer {
      if waiting.isEmpty { free += 1 } else { waiting.removeFirst().resume() }
    }
    return try await body()
  }
}
