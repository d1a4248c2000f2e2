import Testing
import WorkshopSupport

/// The bounded waits the checks are built on keep what the code under test sees unchanged.
@Suite("Bounded waits")
struct BoundedWaitTests {
  /// A check cancels a caller before it asks, then calls through `withTimeout`: the operation
  /// runs in a task of its own, which must not look at `Task.isCancelled` before the caller's
  /// cancellation reaches it, or a right answer runs a block that a cancelled caller asked for.
  /// The window is microseconds, and shows only when the machine is loaded: before the fix, 2 to
  /// 36 of 20,000 beside four busy loops; on a quiet machine, hardly ever.
  @Test("An operation bounded by an already cancelled caller is cancelled from its first line")
  func cancelledCallerCancelsTheOperationFirst() async {
    // Fewer under the sanitizers (a time scale above 1): 20,000 bounded calls under the thread
    // sanitizer starved the checks beside them for two minutes.
    let runs = timeScale == 1 ? 20_000 : 200
    var uncancelled = 0
    for _ in 0..<runs {
      let caller = Task {
        _ = await eventually(within: .seconds(5)) { Task.isCancelled }
        return try await withTimeout(.seconds(10), "a look at Task.isCancelled") {
          Task.isCancelled
        }
      }
      caller.cancel()
      if case .success(false) = await caller.result { uncancelled += 1 }
    }
    #expect(
      uncancelled == 0,
      "\(uncancelled) of \(runs) operations, bounded by a cancelled caller, were not cancelled")
  }
}
