/// Runs two operations at the same time, each starting on an executor of its own instead of
/// the cooperative pool, and returns both results in order.
///
/// For two parties that must meet at a bounded barrier: an `async let` starts on the pool, and
/// on 2 cores the other checks of a run can hold both of its threads for seconds, so the second
/// party never reached the barrier before the first gave up, and a right answer failed (Step 6,
/// "two model actors run at the same time", 1 of 10 verify runs in CI). A default actor called
/// from here runs its job on the preferred executor too; an actor with an executor of its own
/// runs it there, whatever the caller prefers (SE-0417).
public func sideBySide<Value: Sendable>(
  on executors: (any TaskExecutor, any TaskExecutor) = (
    OffThePoolExecutor.shared, OffThePoolExecutor.shared
  ),
  _ first: @escaping @Sendable () async -> Value,
  _ second: @escaping @Sendable () async -> Value
) async -> (Value, Value) {
  await withTaskGroup(of: (Int, Value).self) { group in
    group.addTask(executorPreference: executors.0) { (0, await first()) }
    group.addTask(executorPreference: executors.1) { (1, await second()) }
    var results: [Int: Value] = [:]
    for await (index, value) in group { results[index] = value }
    return (results[0]!, results[1]!)
  }
}
