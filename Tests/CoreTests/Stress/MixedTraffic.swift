import ManagedObjectCore
import WorkshopSupport

extension StressTests {
  /// The plan of one mixed round.
  ///
  /// Phase 1 (legal): every context inserts its objects, one `perform` each, and saves.
  /// Phase 2 (mixed): every context adds `increment` to each of its objects' `value`, one `perform`
  /// each, while task workers and Dispatch workers make illegal reads and writes outside `perform`
  /// on those same objects: each access touches an object no other access touches.
  /// Phase 3 (legal): every context saves; a fresh context checks the store.
  enum Mixed {
    static let rounds = 5
    static let contexts = 4
    static let objectsPerContext = 100
    static let taskWorkers = 4
    static let queueWorkers = 4
    static let accessesPerWorker = 50
    static let increment = 1000

    static var workers: Int { taskWorkers + queueWorkers }
    static var illegalAccesses: Int { workers * accessesPerWorker }

    enum Access {
      case readName, readValue, writeLabel
    }

    static func access(_ index: Int) -> Access {
      switch index % 3 {
      case 0: .readName
      case 1: .readValue
      default: .writeLabel
      }
    }

    /// The object that worker `worker`'s access number `index` touches.
    static func target(worker: Int, access index: Int) -> (context: Int, object: Int) {
      let global = worker * accessesPerWorker + index
      return (global / objectsPerContext, global % objectsPerContext)
    }

    static func contextName(_ context: Int) -> String { "stress-\(context)" }
    static func name(_ context: Int, _ object: Int) -> String { "c\(context)-o\(object)" }
    static func label(worker: Int, access index: Int) -> String { "w\(worker)-a\(index)" }
    static func isTaskWorker(_ worker: Int) -> Bool { worker < taskWorkers }

    /// The labels the illegal writes leave, by object name; the other objects keep "".
    static var expectedLabels: [String: String] {
      var labels: [String: String] = [:]
      for worker in 0..<workers {
        for index in 0..<accessesPerWorker where access(index) == .writeLabel {
          let (context, object) = target(worker: worker, access: index)
          labels[name(context, object)] = label(worker: worker, access: index)
        }
      }
      return labels
    }

    /// One entry per illegal access, keyed like ``StressTests/histogram(_:includingLocation:)``.
    static var expectedHistogram: [String: Int] {
      var expected: [String: Int] = [:]
      for worker in 0..<workers {
        for index in 0..<accessesPerWorker {
          let subject =
            switch access(index) {
            case .readName: "read of Counter.name"
            case .readValue: "read of Counter.value"
            case .writeLabel: "write of Counter.label"
            }
          let context = contextName(target(worker: worker, access: index).context)
          let place = isTaskWorker(worker) ? taskPlace : threadPlace
          expected["outsidePerform \(subject) in '\(context)' \(place)", default: 0] += 1
        }
      }
      return expected
    }

    /// One mixed round: its three phases, then the store as a context that took no part sees it.
    static func run(_ round: Int) async throws -> RoundOutcome {
      let container = PersistentContainer(
        name: "mixed round \(round)", concurrencyChecking: .record)
      let contexts = backgroundContexts(
        named: (0..<Mixed.contexts).map(contextName), in: container)
      let objects: Smuggled<[[Counter]]>
      switch await insertAndSave(contexts) {
      case .success(let created): objects = created
      case .failure(let failure):
        return RoundOutcome(violations: container.violations, problems: [failure.description])
      }
      var problems: [String] = []
      let setUpViolations = container.removeAllViolations()
      if !setUpViolations.isEmpty {
        problems.append("the legal phase 1 recorded:\n\(describe(setUpViolations))")
      }
      problems += await mixTraffic(contexts, objects)
      problems += await saveAll(contexts)
      let violations = container.violations
      problems += try await checkStore(of: container)
      return RoundOutcome(violations: violations, problems: problems)
    }

    /// One illegal access, outside any `perform`; returns what it saw, if that was wrong.
    private static func illegalAccess(
      worker: Int, access index: Int, objects: Smuggled<[[Counter]]>
    ) -> String? {
      let (context, number) = Mixed.target(worker: worker, access: index)
      let object = objects.value[context][number]
      let name = Mixed.name(context, number)
      switch Mixed.access(index) {
      case .readName:
        let read = object.name
        return read == name ? nil : "worker \(worker) read name '\(read)' from \(name)"
      case .readValue:
        let read = object.value
        return read == number || read == number + Mixed.increment
          ? nil : "worker \(worker) read a torn or foreign value \(read) from \(name)"
      case .writeLabel:
        object.label = Mixed.label(worker: worker, access: index)
        return nil
      }
    }

    /// Phase 1, legal: inserts and a save per context, concurrently; the objects by context.
    private static func insertAndSave(
      _ contexts: [ManagedObjectContext]
    ) async -> Result<Smuggled<[[Counter]]>, RoundFailure> {
      let created = await withTaskGroup(of: (Int, Result<Smuggled<[Counter]>, any Error>).self) {
        group in
        for number in 0..<Mixed.contexts {
          group.addTask {
            let context = contexts[number]
            var objects: [Counter] = []
            for index in 0..<Mixed.objectsPerContext {
              objects.append(
                await context.perform {
                  let counter = Counter(context: context)
                  counter.name = Mixed.name(number, index)
                  counter.value = index
                  return counter
                })
            }
            do {
              let count = try await context.perform {
                try context.save()
                return try context.count(for: FetchRequest<Counter>())
              }
              // Other contexts may have saved already: at least this context's objects are there.
              guard count >= Mixed.objectsPerContext else {
                throw RoundFailure("context \(number) counts \(count) objects after saving")
              }
              return (number, .success(Smuggled(objects)))
            } catch {
              return (number, .failure(error))
            }
          }
        }
        var created: [Int: Result<Smuggled<[Counter]>, any Error>] = [:]
        for await (number, result) in group { created[number] = result }
        return created
      }
      var lists: [[Counter]] = []
      for number in 0..<Mixed.contexts {
        switch created[number] {
        case .success(let objects)?:
          lists.append(objects.value)
        case .failure(let error)?:
          return .failure(RoundFailure("context \(number) failed in phase 1: \(error)"))
        case nil:
          return .failure(RoundFailure("context \(number) never reported"))
        }
      }
      return .success(Smuggled(lists))
    }

    /// Phase 2, mixed: legal increments in `perform`, illegal accesses from tasks and Dispatch
    /// threads; returns what the illegal accesses saw wrong.
    private static func mixTraffic(
      _ contexts: [ManagedObjectContext], _ objects: Smuggled<[[Counter]]>
    ) async -> [String] {
      let start = Gate()
      return await withTaskGroup(of: [String].self) { group in
        for number in 0..<Mixed.contexts {
          group.addTask {
            let context = contexts[number]
            for index in 0..<Mixed.objectsPerContext {
              await context.perform { objects.value[number][index].value += Mixed.increment }
            }
            return []
          }
        }
        for worker in 0..<Mixed.taskWorkers {
          group.addTask {
            await taskWorker(Mixed.accessesPerWorker) { index in
              illegalAccess(worker: worker, access: index, objects: objects)
            }
          }
        }
        for worker in Mixed.taskWorkers..<Mixed.workers {
          group.addTask {
            await threadWorker("queue worker \(worker)", after: start, Mixed.accessesPerWorker) {
              index in
              illegalAccess(worker: worker, access: index, objects: objects)
            }
          }
        }
        start.open()
        var seen: [String] = []
        for await found in group { seen += found }
        return seen
      }
    }

    /// Phase 3, legal: every context saves what phase 2 left (the increments and the labels).
    private static func saveAll(_ contexts: [ManagedObjectContext]) async -> [String] {
      await withTaskGroup(of: String?.self) { group in
        for number in 0..<Mixed.contexts {
          group.addTask {
            let context = contexts[number]
            do {
              return try await context.perform {
                try context.save()
                return context.hasChanges ? "context \(number) still has changes after saving" : nil
              }
            } catch {
              return "context \(number) failed to save in phase 3: \(error)"
            }
          }
        }
        var errors: [String] = []
        for await error in group { errors += error.map { [$0] } ?? [] }
        return errors
      }
    }

    /// The store, seen by a context that took no part: every object, its value and its label.
    private static func checkStore(of container: PersistentContainer) async throws -> [String] {
      let checker = container.newBackgroundContext()
      checker.name = "checker"
      return try await checker.perform {
        var problems: [String] = []
        let total = Mixed.contexts * Mixed.objectsPerContext
        let count = try checker.count(for: FetchRequest<Counter>())
        if count != total {
          problems.append("the store counts \(count) objects instead of \(total)")
        }
        var stored: [String: (value: Int, label: String)] = [:]
        for counter in try checker.fetch(FetchRequest<Counter>()) {
          stored[counter.name] = (counter.value, counter.label)
        }
        let labels = Mixed.expectedLabels
        for number in 0..<Mixed.contexts {
          for index in 0..<Mixed.objectsPerContext {
            let name = Mixed.name(number, index)
            guard let row = stored[name] else {
              problems.append("\(name) is missing from the store")
              continue
            }
            if row.value != index + Mixed.increment {
              problems.append("\(name) has value \(row.value), expected \(index + Mixed.increment)")
            }
            if row.label != labels[name, default: ""] {
              problems.append(
                "\(name) has label '\(row.label)', expected '\(labels[name, default: ""])'")
            }
          }
        }
        return problems
      }
    }
  }
}
