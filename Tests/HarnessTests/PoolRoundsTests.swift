import Foundation
import Testing
import WorkshopSupport

/// The harness's proof that a caller got a thread. It holds every thread of the
/// medium priority, so it runs in a child process of its own (held in the test process, the
/// other checks' bounded waits ran out), and only in the maintainers' verify run.
@Suite(
  "A round of the pool",
  .enabled(if: isVerifyMode, "holds the pool's threads: run with WORKSHOP_VERIFY=1"))
struct PoolRoundsTests {
  @Test("A round does not run while every medium-priority thread is held, and runs once freed")
  func roundWaitsForEveryPriority() async {
    await withExitTestOffThePool {
      await #expect(processExitsWith: .success, "a round of the pool must wait for every priority")
      {
        // The scenario waits off the pool: it must go on while the pool is held.
        await withTaskExecutorPreference(OffThePoolExecutor.shared) {
          await PoolRoundsTests.heldPool()
        }
      }
    }
  }

  @Test("A bounded wait spends none of its time while the pool is full")
  func boundedWaitOverFullPool() async {
    await withExitTestOffThePool {
      await #expect(processExitsWith: .success, "a full pool must not spend a bounded wait") {
        await withTaskExecutorPreference(OffThePoolExecutor.shared) {
          await PoolRoundsTests.boundedWaitOverFullPool()
        }
      }
    }
  }

  /// The pool's queue full for 0.8 s (160 jobs of 10 ms on 2 threads), a wait bounded at 0.5 s
  /// for a job queued behind them: it runs once they have, and the wait, which counted nothing
  /// meanwhile, sees it. As at the start of the verify run, the threads are busy, not blocked:
  /// Dispatch's global queue, where the bound's looks run, is free all along.
  static func boundedWaitOverFullPool() async {
    let jobs = 80 * ProcessInfo.processInfo.activeProcessorCount
    for _ in 0..<jobs {
      Task.detached(priority: .medium) {
        let end = ContinuousClock.now + .milliseconds(10)
        while ContinuousClock.now < end {}
      }
    }
    let answer = try? await withTimeout(.milliseconds(500), "a job behind a full pool") {
      await Task.detached(priority: .medium) { 42 }.value
    }
    #expect(answer == 42, "a wait bounded at 0.5 s ran out while the pool's queue was full")
  }

  /// Holds every medium-priority thread until `free` opens; false when they never all ran.
  static func holdPool(until free: Gate) async -> Bool {
    let threads = ProcessInfo.processInfo.activeProcessorCount
    let holding = (0..<threads).map { _ in Gate() }
    for gate in holding {
      Task.detached(priority: .medium) {
        gate.open()
        free.wait()
      }
    }
    let held = await eventually { holding.allSatisfy(\.isOpen) }
    #expect(held, "the \(threads) medium-priority jobs that hold the pool never all ran")
    return held
  }

  static func heldPool() async {
    let free = Gate()
    defer { free.open() }
    guard await holdPool(until: free) else { return }

    let rounds = PoolRounds()
    _ = rounds.tick()
    // A low-priority job sent after the round's own has run: where priorities have threads of
    // their own (Linux), so has the round's low job. A round of that job alone counted here.
    let probe = Gate()
    Task.detached(priority: .low) { probe.open() }
    _ = await probe.opened(within: .seconds(1))
    #expect(
      rounds.tick() == 0,
      "a round ran while every medium-priority thread was held: it does not show that a caller of that priority got a thread"
    )

    free.open()
    let ran = await eventually { rounds.tick() > 0 }
    #expect(ran, "no round ran after the pool's threads were freed")
  }
}
