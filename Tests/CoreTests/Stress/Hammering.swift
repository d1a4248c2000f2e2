import ManagedObjectCore
import WorkshopSupport

extension StressTests {
  /// Every worker writes its own increasing values into one object outside `perform`, and saves
  /// outside `perform` now and then. The last value written is some worker's last value, and
  /// whatever the context holds at the end is what a legal save stores.
  enum Hammer {
    static let queueWorkers = 3
    static let taskWorkers = 3
    static let writesPerWorker = 200
    static let saveEvery = 10
    static let stride = 10_000

    static var workers: Int { queueWorkers + taskWorkers }
    static var savesPerWorker: Int { writesPerWorker / saveEvery }
    static func value(worker: Int, write index: Int) -> Int { worker * stride + index }
    static func isSave(_ index: Int) -> Bool { index % saveEvery == saveEvery - 1 }

    static var expectedHistogram: [String: Int] {
      [
        "outsidePerform write of Counter.value in 'hammered' \(taskPlace)":
          taskWorkers * writesPerWorker,
        "outsidePerform write of Counter.value in 'hammered' \(threadPlace)":
          queueWorkers * writesPerWorker,
        "outsidePerform save in 'hammered' \(taskPlace)": taskWorkers * savesPerWorker,
        "outsidePerform save in 'hammered' \(threadPlace)": queueWorkers * savesPerWorker,
      ]
    }

    /// One write of a worker (and a save, now and then), outside any `perform`; returns the
    /// save's error, if any.
    private static func hammer(
      worker: Int, write index: Int, context: Smuggled<ManagedObjectContext>,
      counter: Smuggled<Counter>
    ) -> String? {
      counter.value.value = value(worker: worker, write: index)
      guard isSave(index) else { return nil }
      do {
        try context.value.save()
        return nil
      } catch {
        return "worker \(worker)'s save failed: \(error)"
      }
    }

    static func run() async throws -> RoundOutcome {
      let container = PersistentContainer(name: "hammering", concurrencyChecking: .record)
      let target = container.newBackgroundContext()
      target.name = "hammered"
      let counter = try await savedCounter(named: "hammered", in: target)
      let context = Smuggled(target)
      let start = Gate()
      var problems = await withTaskGroup(of: [String].self) { group in
        for worker in 0..<queueWorkers {
          group.addTask {
            await threadWorker("hammering queue worker \(worker)", after: start, writesPerWorker) {
              index in
              hammer(worker: worker, write: index, context: context, counter: counter)
            }
          }
        }
        for worker in queueWorkers..<workers {
          group.addTask {
            await taskWorker(writesPerWorker) { index in
              hammer(worker: worker, write: index, context: context, counter: counter)
            }
          }
        }
        start.open()
        var seen: [String] = []
        for await found in group { seen += found }
        return seen
      }
      let violations = container.violations

      let id = counter.value.objectID
      let final = try await context.value.perform {
        let final = counter.value.value
        try context.value.save()
        return final
      }
      let lastWrites = Set((0..<workers).map { value(worker: $0, write: writesPerWorker - 1) })
      if !lastWrites.contains(final) {
        problems.append("the object holds \(final), which is no worker's last write")
      }
      let checker = container.newBackgroundContext()
      let stored = try await checker.perform {
        try checker.existingObject(with: id, as: Counter.self).value
      }
      if stored != final { problems.append("the store holds \(stored), the context \(final)") }
      return RoundOutcome(violations: violations, problems: problems)
    }
  }
}
