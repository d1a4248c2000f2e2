import Foundation

/// How many helper processes (the compilers of the probes and gates) may run at once.
///
/// Each one costs a core for a second or more; dozens started together by parallel tests starve
/// the cooperative pool on a 2-core machine, and checks with honest 10 s bounds time out. So they
/// take turns, first come first served, without blocking a thread while they wait.
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
