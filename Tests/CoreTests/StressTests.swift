import Dispatch
import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

// The checker under load: many tasks and Dispatch threads, legal and illegal work mixed, with an
// end state that does not depend on the interleaving. Illegal accesses each record exactly one
// violation, so their number is exact; each touches its own object, so the values are exact too.
//
// Rules kept here: no sleeps; every wait bounded (`withTimeout`, `Gate.wait`); blocking waits only
// on Dispatch threads, never on the cooperative pool (two threads on this machine).

@Suite("Checker under concurrent load")
struct StressTests {
  @Test("Mixed legal and illegal traffic over several contexts ends in an exact state")
  func mixedTraffic() async throws {
    try #require(
      Mixed.workers * Mixed.accessesPerWorker <= Mixed.contexts * Mixed.objectsPerContext,
      "each illegal access must have an object of its own")
    for round in 0..<Mixed.rounds {
      let outcome = try await withTimeout(.seconds(20), "mixed traffic, round \(round)") {
        try await mixedRound(round)
      }
      #expect(
        outcome.problems.isEmpty,
        "round \(round) observed:\n\(outcome.problems.map { "  - \($0)" }.joined(separator: "\n"))"
      )
      let observed = histogram(outcome.violations)
      #expect(
        outcome.violations.count == Mixed.illegalAccesses,
        "round \(round): \(Mixed.illegalAccesses) illegal accesses must record exactly as many violations; observed \(outcome.violations.count):\n\(describe(outcome.violations))"
      )
      #expect(
        observed == Mixed.expectedHistogram,
        "round \(round): the violations do not match the illegal accesses made:\n\(describe(outcome.violations))"
      )
    }
  }

  @Test(
    "Legal traffic from tasks and Dispatch threads, nested performAndWait included, records nothing"
  )
  func legalTraffic() async throws {
    let outcome = try await withTimeout(.seconds(20), "legal traffic") { try await legalRound() }
    #expect(
      outcome.problems.isEmpty,
      "observed:\n\(outcome.problems.map { "  - \($0)" }.joined(separator: "\n"))")
    #expect(
      outcome.violations.isEmpty,
      "legal traffic recorded \(outcome.violations.count) violation(s):\n\(describe(outcome.violations))"
    )
  }

  @Test("Cross-context uses in both directions at once are reported, never deadlock")
  func crossContextBothWays() async throws {
    let outcome = try await withTimeout(.seconds(10), "cross-context uses in both directions") {
      try await crossContextRound()
    }
    #expect(
      outcome.problems.isEmpty,
      "observed:\n\(outcome.problems.map { "  - \($0)" }.joined(separator: "\n"))")
    let expected: [String: Int] = [
      "foreignContext write of Book.author in 'B'": CrossContext.rounds,
      "foreignContext delete of Book in 'A'": CrossContext.rounds,
    ]
    #expect(
      histogram(outcome.violations, includingLocation: false) == expected,
      "observed \(outcome.violations.count) violation(s):\n\(describe(outcome.violations))")
  }

  @Test("Hammering one object from everywhere: exact count, no torn value, no lost save")
  func hammering() async throws {
    let outcome = try await withTimeout(.seconds(20), "hammering one object") {
      try await hammerRound()
    }
    #expect(
      outcome.problems.isEmpty,
      "observed:\n\(outcome.problems.map { "  - \($0)" }.joined(separator: "\n"))")
    #expect(
      histogram(outcome.violations) == Hammer.expectedHistogram,
      "observed \(outcome.violations.count) violation(s):\n\(describe(outcome.violations))")
  }
}

private struct RoundFailure: Error, CustomStringConvertible {
  let description: String

  init(_ description: String) {
    self.description = description
  }
}

/// What a round observed: its violations, and every way the data disagreed with the plan.
private struct RoundOutcome: Sendable {
  var violations: [ConcurrencyViolation]
  var problems: [String]
}

// MARK: - Mixed traffic

/// The plan of one mixed round.
///
/// Phase 1 (legal): every context inserts its objects, one `perform` each, and saves.
/// Phase 2 (mixed): every context adds `increment` to each of its objects' `value`, one `perform`
/// each, while task workers and Dispatch workers make illegal reads and writes outside `perform`
/// on those same objects: each access touches an object no other access touches.
/// Phase 3 (legal): every context saves; a fresh context checks the store.
private enum Mixed {
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

  /// One entry per illegal access, keyed like ``histogram(_:includingLocation:)``.
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
}

/// One illegal access, outside any `perform`; returns what it saw, if that was wrong.
private func illegalAccess(
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

private func mixedRound(_ round: Int) async throws -> RoundOutcome {
  let container = PersistentContainer(name: "mixed round \(round)", concurrencyChecking: .record)
  let contexts = Smuggled(
    (0..<Mixed.contexts).map { number in
      let context = container.newBackgroundContext()
      context.name = Mixed.contextName(number)
      return context
    })
  var problems: [String] = []

  // Phase 1, legal: inserts and a save per context, concurrently.
  let created = await withTaskGroup(of: (Int, Result<Smuggled<[Counter]>, any Error>).self) {
    group in
    for number in 0..<Mixed.contexts {
      group.addTask {
        let context = contexts.value[number]
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
      problems.append("context \(number) failed in phase 1: \(error)")
      return RoundOutcome(violations: container.violations, problems: problems)
    case nil:
      problems.append("context \(number) never reported")
      return RoundOutcome(violations: container.violations, problems: problems)
    }
  }
  let setUpViolations = container.removeAllViolations()
  if !setUpViolations.isEmpty {
    problems.append("the legal phase 1 recorded:\n\(describe(setUpViolations))")
  }
  let objects = Smuggled(lists)

  // Phase 2, mixed: legal increments in perform, illegal accesses from tasks and Dispatch.
  let start = Gate()
  let seen = await withTaskGroup(of: [String].self) { group in
    for number in 0..<Mixed.contexts {
      group.addTask {
        let context = contexts.value[number]
        for index in 0..<Mixed.objectsPerContext {
          await context.perform { objects.value[number][index].value += Mixed.increment }
        }
        return []
      }
    }
    for worker in 0..<Mixed.taskWorkers {
      group.addTask {
        var seen: [String] = []
        for index in 0..<Mixed.accessesPerWorker {
          if let wrong = illegalAccess(worker: worker, access: index, objects: objects) {
            seen.append(wrong)
          }
          await Task.yield()
        }
        return seen
      }
    }
    for worker in Mixed.taskWorkers..<Mixed.workers {
      group.addTask {
        await withCheckedContinuation { continuation in
          DispatchQueue.global().async {
            guard start.wait() else {
              continuation.resume(returning: ["queue worker \(worker): the start gate stayed shut"])
              return
            }
            var seen: [String] = []
            for index in 0..<Mixed.accessesPerWorker {
              if let wrong = illegalAccess(worker: worker, access: index, objects: objects) {
                seen.append(wrong)
              }
            }
            continuation.resume(returning: seen)
          }
        }
      }
    }
    start.open()
    var seen: [String] = []
    for await found in group { seen += found }
    return seen
  }
  problems += seen

  // Phase 3, legal: every context saves what phase 2 left (the increments and the labels).
  let saveErrors = await withTaskGroup(of: String?.self) { group in
    for number in 0..<Mixed.contexts {
      group.addTask {
        let context = contexts.value[number]
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
  problems += saveErrors
  let violations = container.violations

  // The store, seen by a context that took no part.
  let checker = container.newBackgroundContext()
  checker.name = "checker"
  problems += try await checker.perform {
    var problems: [String] = []
    let total = Mixed.contexts * Mixed.objectsPerContext
    let count = try checker.count(for: FetchRequest<Counter>())
    if count != total { problems.append("the store counts \(count) objects instead of \(total)") }
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
  return RoundOutcome(violations: violations, problems: problems)
}

// MARK: - Legal traffic

/// Queue workers use `performAndWait`, task workers `perform`; every `nestEvery`-th access goes
/// through the hub context first and nests a `performAndWait` of the target context inside it,
/// touching the hub's seed object from there. Nesting always goes hub first, so it cannot deadlock.
private enum Legal {
  static let contexts = 4
  static let queueWorkers = 4
  static let taskWorkers = 4
  static let accessesPerWorker = 50
  static let nestEvery = 5

  static var inserts: Int { (queueWorkers + taskWorkers) * accessesPerWorker }
  static func target(worker: Int, access index: Int) -> Int { (worker + index) % contexts }
  static func isNested(_ index: Int) -> Bool { index % nestEvery == 0 }
}

/// Inserts one counter into `context`; nested, it also bumps the hub's seed counter.
private func legalInsert(into context: ManagedObjectContext, name: String, seed: Counter?) {
  let counter = Counter(context: context)
  counter.name = name
  if let seed {
    seed.value += 1
    counter.value = seed.value
  }
}

private func legalRound() async throws -> RoundOutcome {
  let container = PersistentContainer(name: "legal traffic", concurrencyChecking: .record)
  let contexts = Smuggled(
    (0..<Legal.contexts).map { number in
      let context = container.newBackgroundContext()
      context.name = "legal-\(number)"
      return context
    })
  let hub = contexts.value[0]
  let seed = try await hub.perform {
    let seed = Counter(context: hub)
    seed.name = "seed"
    try hub.save()
    return Smuggled(seed)
  }

  let start = Gate()
  await withTaskGroup(of: Void.self) { group in
    for worker in 0..<Legal.queueWorkers {
      group.addTask {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          DispatchQueue.global().async {
            _ = start.wait()
            let hub = contexts.value[0]
            for index in 0..<Legal.accessesPerWorker {
              let context = contexts.value[Legal.target(worker: worker, access: index)]
              let name = "queue-\(worker)-\(index)"
              if Legal.isNested(index) {
                hub.performAndWait {
                  context.performAndWait {
                    legalInsert(into: context, name: name, seed: seed.value)
                  }
                }
              } else {
                context.performAndWait {
                  legalInsert(into: context, name: name, seed: nil)
                }
              }
            }
            continuation.resume()
          }
        }
      }
    }
    for worker in 0..<Legal.taskWorkers {
      group.addTask {
        let hub = contexts.value[0]
        for index in 0..<Legal.accessesPerWorker {
          let context = contexts.value[Legal.target(worker: worker, access: index)]
          let name = "task-\(worker)-\(index)"
          if Legal.isNested(index) {
            await hub.perform {
              context.performAndWait {
                legalInsert(into: context, name: name, seed: seed.value)
              }
            }
          } else {
            await context.perform { legalInsert(into: context, name: name, seed: nil) }
          }
        }
      }
    }
    start.open()
  }

  var problems: [String] = []
  for number in 0..<Legal.contexts {
    let context = contexts.value[number]
    do {
      try await context.perform { try context.save() }
    } catch {
      problems.append("legal-\(number) failed to save: \(error)")
    }
  }
  let nested =
    (Legal.queueWorkers + Legal.taskWorkers)
    * (0..<Legal.accessesPerWorker).filter(Legal.isNested).count
  let checker = container.newBackgroundContext()
  problems += try await checker.perform {
    var problems: [String] = []
    let names = try checker.fetch(FetchRequest<Counter>()).map(\.name)
    if names.count != Legal.inserts + 1 {
      problems.append("the store holds \(names.count) counters, expected \(Legal.inserts + 1)")
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
  return RoundOutcome(violations: container.violations, problems: problems)
}

// MARK: - Cross-context, both directions

/// Two Dispatch threads meet at a barrier each round; then one, inside A, relates A's book to
/// B's author while the other, inside B, deletes A's book with B. Each holds its own context's
/// lock while the checker names the other context: the core must report both and go on. (A core
/// that took the other context's lock there deadlocked within 5000 rounds in every run tried.)
private enum CrossContext {
  static let rounds = 5000
}

private func crossContextRound() async throws -> RoundOutcome {
  let (container, a, b) = containerWithContextsAB("cross-context", checking: .record)
  let book = try await a.perform {
    let book = Book(context: a)
    book.title = "Dune"
    try a.save()
    return Smuggled(book)
  }
  let author = try await b.perform {
    let author = Author(context: b)
    author.name = "Frank Herbert"
    try b.save()
    return Smuggled(author)
  }
  let contexts = Smuggled((a, b))
  let barriers = (0..<CrossContext.rounds).map { _ in Barrier(parties: 2) }

  let missed = await withTaskGroup(of: Int.self) { group in
    group.addTask {
      await withCheckedContinuation { continuation in
        DispatchQueue(label: "StressTests.cross-context.A").async {
          var missed = 0
          for barrier in barriers {
            if !barrier.arriveAndWait() { missed += 1 }
            contexts.value.0.performAndWait { book.value.author = author.value }
          }
          continuation.resume(returning: missed)
        }
      }
    }
    group.addTask {
      await withCheckedContinuation { continuation in
        DispatchQueue(label: "StressTests.cross-context.B").async {
          var missed = 0
          for barrier in barriers {
            if !barrier.arriveAndWait() { missed += 1 }
            contexts.value.1.performAndWait { contexts.value.1.delete(book.value) }
          }
          continuation.resume(returning: missed)
        }
      }
    }
    var missed = 0
    for await count in group { missed += count }
    return missed
  }
  var problems: [String] = []
  if missed > 0 { problems.append("\(missed) barrier waits timed out") }
  let violations = container.violations
  let (deleted, related) = await a.perform { (book.value.isDeleted, book.value.author != nil) }
  if deleted { problems.append("B's delete marked A's book as deleted") }
  if related { problems.append("A's book was related to B's author") }
  return RoundOutcome(violations: violations, problems: problems)
}

// MARK: - Hammering one object

/// Every worker writes its own increasing values into one object outside `perform`, and saves
/// outside `perform` now and then. The last value written is some worker's last value, and
/// whatever the context holds at the end is what a legal save stores.
private enum Hammer {
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
}

/// One worker's writes (and saves), outside any `perform`; returns the save errors it saw.
private func hammer(
  worker: Int, write index: Int, context: Smuggled<ManagedObjectContext>,
  counter: Smuggled<Counter>
) -> String? {
  counter.value.value = Hammer.value(worker: worker, write: index)
  guard Hammer.isSave(index) else { return nil }
  do {
    try context.value.save()
    return nil
  } catch {
    return "worker \(worker)'s save failed: \(error)"
  }
}

private func hammerRound() async throws -> RoundOutcome {
  let container = PersistentContainer(name: "hammering", concurrencyChecking: .record)
  let target = container.newBackgroundContext()
  target.name = "hammered"
  let counter = try await target.perform {
    let counter = Counter(context: target)
    counter.name = "hammered"
    try target.save()
    return Smuggled(counter)
  }
  let context = Smuggled(target)
  let start = Gate()
  let seen = await withTaskGroup(of: [String].self) { group in
    for worker in 0..<Hammer.queueWorkers {
      group.addTask {
        await withCheckedContinuation { continuation in
          DispatchQueue.global().async {
            guard start.wait() else {
              continuation.resume(returning: ["queue worker \(worker): the start gate stayed shut"])
              return
            }
            let seen = (0..<Hammer.writesPerWorker).compactMap { index in
              hammer(worker: worker, write: index, context: context, counter: counter)
            }
            continuation.resume(returning: seen)
          }
        }
      }
    }
    for worker in Hammer.queueWorkers..<Hammer.workers {
      group.addTask {
        var seen: [String] = []
        for index in 0..<Hammer.writesPerWorker {
          if let error = hammer(worker: worker, write: index, context: context, counter: counter) {
            seen.append(error)
          }
          await Task.yield()
        }
        return seen
      }
    }
    start.open()
    var seen: [String] = []
    for await found in group { seen += found }
    return seen
  }
  var problems = seen
  let violations = container.violations

  let id = counter.value.objectID
  let final = try await context.value.perform {
    let final = counter.value.value
    try context.value.save()
    return final
  }
  let lastWrites = Set(
    (0..<Hammer.workers).map { Hammer.value(worker: $0, write: Hammer.writesPerWorker - 1) })
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

// MARK: - Helpers

private let taskPlace = "(task)"
private let threadPlace = "(thread)"

/// Violations counted by kind, subject, context and (optionally) where they ran.
private func histogram(
  _ violations: [ConcurrencyViolation], includingLocation: Bool = true
) -> [String: Int] {
  var counts: [String: Int] = [:]
  for violation in violations {
    var key = "\(violation.kind) \(violation.subject) in '\(violation.contextName)'"
    if includingLocation {
      if violation.location.contains("in a Swift task") {
        key += " \(taskPlace)"
      } else if violation.location.contains("outside any perform block") {
        key += " \(threadPlace)"
      } else {
        key += " (elsewhere: \(violation.location))"
      }
    }
    counts[key, default: 0] += 1
  }
  return counts
}

/// A readable summary for failure messages: counts by kind, then the first descriptions.
private func describe(_ violations: [ConcurrencyViolation], limit: Int = 12) -> String {
  guard !violations.isEmpty else { return "  (none)" }
  let counts = histogram(violations).sorted { $0.key < $1.key }
    .map { "  \($0.value) × \($0.key)" }
  let shown = violations.prefix(limit).map { "  - \($0)" }
  let more = violations.count > limit ? ["  … and \(violations.count - limit) more"] : []
  return (counts + ["first violations:"] + shown + more).joined(separator: "\n")
}
