import Dispatch
import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// `performAndWaitCycle`: two contexts whose blocks wait for each other in `performAndWait` are
/// seen as a deadlock as soon as both wait, and a wait that will end is not.
@Suite("performAndWait: queues that wait for each other")
struct PerformAndWaitCycleTests {
  @Test("a block that waits for a queue whose block runs on is no cycle, and leaves no record")
  func waitThatEnds() async throws {
    let container = makeContainer()
    let (one, two) = (container.newBackgroundContext(), container.newBackgroundContext())
    let (holding, release, waiting) = (Gate(), Gate(), Gate())
    enqueue(two) {
      holding.open()
      release.wait()
    }
    let held = await holding.opened()
    #expect(held)
    enqueue(one) {
      waiting.open()
      two.performAndWait {}
    }
    let waits = await waiting.opened()
    #expect(waits)
    // One waits for two; two's block waits for a gate, not for one.
    _ = await eventually(within: .milliseconds(50)) { false }
    #expect(one.performAndWaitCycle == nil)
    #expect(two.performAndWaitCycle == nil)
    release.open()
    await one.perform(schedule: .enqueued) {}
    #expect(one.performAndWaitCycle == nil)
  }

  /// The deadlock is real and never ends: it is made in a child process, which reports what it
  /// saw by how it exits.
  @Test("two blocks that wait for each other's queues are a cycle, named from either side")
  func cycle() async {
    await withExitTestOffThePool {
      await #expect(processExitsWith: .success, "the cycle must be seen within the bound") {
        let container = makeContainer("PerformAndWaitCycleTests.cycle")
        let (one, two) = (container.newBackgroundContext(), container.newBackgroundContext())
        one.name = "one"
        two.name = "two"
        let barrier = Barrier(parties: 2)
        enqueue(one) {
          barrier.arriveAndWait()
          two.performAndWait {}
        }
        enqueue(two) {
          barrier.arriveAndWait()
          one.performAndWait {}
        }
        let seen = await eventually { one.performAndWaitCycle != nil }
        exit(
          seen && one.performAndWaitCycle == ["one", "two"]
            && two.performAndWaitCycle == ["two", "one"] ? 0 : 1)
      }
    }
  }
}
