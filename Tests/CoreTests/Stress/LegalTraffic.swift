import Foundation
import ManagedObjectCore
import WorkshopSupport

extension StressTests {
  /// Queue workers use `performAndWait`, task workers `perform`; every `nestEvery`-th access goes
  /// through the hub context first and nests a `performAndWait` of the target context inside it,
  /// touching the hub's seed object from there. Nesting always goes hub first, so it cannot
  /// deadlock.
  enum Legal {
    static let contexts = 4
    static let queueWorkers = 4
    static let taskWorkers = 4
    static let accessesPerWorker = 50
    static let nestEvery = 5

    static var inserts: Int { (queueWorkers + taskWorkers) * accessesPerWorker }
    static func target(worker: Int, access index: Int) -> Int { (worker + index) % contexts }
    static func isNested(_ index: Int) -> Bool { index % nestEvery == 0 }

    /// Inserts one counter into `context`; nested, it also bumps the hub's seed counter.
    private static func insert(into context: ManagedObjectContext, name: String, seed: Counter?) {
      let counter = Counter(context: context)
      counter.name = name
      if let seed {
        seed.value += 1
        counter.value = seed.value
      }
    }

    static func run() async throws -> RoundOutcome {
      let container = PersistentContainer(name: "legal traffic", concurrencyChecking: .record)
      let contexts = backgroundContexts(
        named: (0..<Legal.contexts).map { "legal-\($0)" }, in: container)
      let hub = contexts[0]
      let seed = try await savedCounter(named: "seed", in: hub)

      let start = Gate()
      var problems = await withTaskGroup(of: [String].self) { group in
        for worker in 0..<queueWorkers {
          group.addTask {
            await threadWorker("legal queue worker \(worker)", after: start, accessesPerWorker) {
              index in
              let context = contexts[target(worker: worker, access: index)]
              let name = "queue-\(worker)-\(index)"
              if isNested(index) {
                hub.performAndWait {
                  context.performAndWait { insert(into: context, name: name, seed: seed.value) }
                }
              } else {
                context.performAndWait { insert(into: context, name: name, seed: nil) }
              }
              return nil
            }
          }
        }
        for worker in 0..<taskWorkers {
          group.addTask {
            for index in 0..<accessesPerWorker {
              let context = contexts[target(worker: worker, access: index)]
              let name = "task-\(worker)-\(index)"
              if isNested(index) {
                await hub.perform {
                  context.performAndWait { insert(into: context, name: name, seed: seed.value) }
                }
              } else {
                await context.perform { insert(into: context, name: name, seed: nil) }
              }
            }
            return []
          }
        }
        start.open()
        var seen: [String] = []
        for await found in group { seen += found }
        return seen
      }

      for (number, context) in contexts.enumerated() {
        do {
          try await context.perform { try context.save() }
        } catch {
          problems.append("legal-\(number) failed to save: \(error)")
        }
      }
      problems += try await checkStore(of: container)
      return RoundOutcome(violations: container.violations, problems: problems)
    }

    /// Every insert saved once, and the seed counted every nested access.
    private static func checkStore(of container: PersistentContainer) async throws -> [String] {
      let nested = (queueWorkers + taskWorkers) * (0..<accessesPerWorker).filter(isNested).count
      let checker = container.newBackgroundContext()
      return try await checker.perform {
        var problems: [String] = []
        let names = try checker.fetch(FetchRequest<Counter>()).map(\.name)
        if names.count != inserts + 1 {
          problems.append("the store holds \(names.count) counters, expected \(inserts + 1)")
        }
        if Set(names).count != names.count { problems.append("some counters were saved twice") }
        let seedValue = try checker.fetch(
          FetchRequest<Counter>(predicate: #Predicate<Counter> { $0.name == "seed" })
        ).first?.value
        if seedValue != nested {
          problems.append(
            "the seed counts \(String(describing: seedValue)) nested accesses, not \(nested)")
        }
        return problems
      }
    }
  }
}
