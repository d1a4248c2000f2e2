import Foundation
import Testing
import WorkshopSupport

/// Not an exam: the harness's proof that a caller got a thread. It holds every thread of the
/// medium priority, so it runs in a child process of its own (held in the test process, the
/// other checks' bounded waits ran out), and only in the maintainers' verify run.
@Suite(
  "Step 5 — harness: a round of the pool",
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

  static func heldPool() async {
    let threads = ProcessInfo.processInfo.activeProcessorCount
    let holding = (0..<threads).map { _ in Gate() }
    let free = Gate()
    defer { free.open() }
    for gate in holding {
      Task.detached(priority: .medium) {
        gate.open()
        free.wait()
      }
    }
    let held = await eventually { holding.allSatisfy(\.isOpen) }
    #expect(held, "the \(threads) medium-priority jobs that hold the pool never all ran")
    guard held else { return }

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
