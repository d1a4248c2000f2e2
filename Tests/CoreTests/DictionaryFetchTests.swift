import Foundation
import ManagedObjectCore
import Testing

@Suite("Dictionary fetches, aggregates and batched faults")
struct DictionaryFetchTests {
  /// Scores per student: ann 10, 20, 30; bob 5; cid 40, 60.
  private func results() async throws -> PersistentContainer {
    let container = makeContainer("results")
    try await container.performBackgroundTask { context in
      for (name, value) in [
        ("ann", 10), ("bob", 5), ("ann", 20), ("cid", 40), ("ann", 30), ("cid", 60),
      ] {
        let counter = Counter(context: context)
        counter.name = name
        counter.value = value
      }
      try context.save()
    }
    return container
  }

  @Test("propertiesToFetch returns chosen attributes, one dictionary per row, no objects")
  func chosenAttributes() async throws {
    let container = try await results()
    let context = container.newBackgroundContext()
    let (rows, registered) = try await context.perform {
      let request = FetchRequest<Counter>(predicate: #Predicate { $0.value >= 30 })
      request.propertiesToFetch = [.attribute("name"), .attribute("value")]
      let rows = try context.fetchDictionaries(request).map {
        "\($0["name"] as? String ?? "?"):\($0["value"] as? Int ?? -1)"
      }
      return (rows, context.registeredObjects.count)
    }
    #expect(rows == ["cid:40", "ann:30", "cid:60"])
    #expect(registered == 0)
  }

  @Test("Grouped aggregates: count, sum, average, min and max per group, sorted by the group")
  func groupedAggregates() async throws {
    let container = try await results()
    let context = container.newBackgroundContext()
    let rows = try await context.perform {
      let request = FetchRequest<Counter>()
      request.propertiesToGroupBy = ["name"]
      request.propertiesToFetch = [
        .attribute("name"),
        .expression(name: "n", function: .count, attribute: "value"),
        .expression(name: "total", function: .sum, attribute: "value"),
        .expression(name: "mean", function: .average, attribute: "value"),
        .expression(name: "low", function: .min, attribute: "value"),
        .expression(name: "high", function: .max, attribute: "value"),
      ]
      return try context.fetchDictionaries(request).map { row in
        [
          row["name"] as? String ?? "?", "\(row["n"] as? Int ?? -1)",
          "\(row["total"] as? Int ?? -1)", "\(row["mean"] as? Double ?? -1)",
          "\(row["low"] as? Int ?? -1)", "\(row["high"] as? Int ?? -1)",
        ].joined(separator: " ")
      }
    }
    #expect(rows == ["ann 3 60 20.0 10 30", "bob 1 5 5.0 5 5", "cid 2 100 50.0 40 60"])
  }

  @Test("Aggregates without grouping give one dictionary; limits and offsets apply to groups")
  func ungroupedAndWindowed() async throws {
    let container = try await results()
    let context = container.newBackgroundContext()
    let (total, window) = try await context.perform {
      let request = FetchRequest<Counter>()
      request.propertiesToFetch = [.expression(name: "total", function: .sum, attribute: "value")]
      let total = try context.fetchDictionaries(request)
      let grouped = FetchRequest<Counter>(fetchLimit: 1, fetchOffset: 1)
      grouped.propertiesToGroupBy = ["name"]
      grouped.propertiesToFetch = [.attribute("name")]
      return (
        total.map { $0["total"] as? Int },
        try context.fetchDictionaries(grouped).map {
          $0["name"] as? String
        }
      )
    }
    #expect(total == [165])
    #expect(window == ["bob"])
  }

  @Test("Dictionary fetches read the saved state, not the context's pending changes")
  func savedStateOnly() async throws {
    let container = try await results()
    let context = container.newBackgroundContext()
    let count = try await context.perform {
      Counter(context: context).name = "pending"
      let request = FetchRequest<Counter>()
      request.propertiesToFetch = [.expression(name: "n", function: .count, attribute: "name")]
      return try context.fetchDictionaries(request).first?["n"] as? Int
    }
    #expect(count == 6)
  }

  @Test("A missing attribute, or an ungrouped attribute next to aggregates, is an error")
  func dictionaryErrors() async throws {
    let container = try await results()
    let context = container.newBackgroundContext()
    let errors = await context.perform { () -> [PersistenceError?] in
      func attempt(_ request: FetchRequest<Counter>) -> PersistenceError? {
        do throws(PersistenceError) {
          _ = try context.fetchDictionaries(request)
          return nil
        } catch {
          return error
        }
      }
      let missing = FetchRequest<Counter>()
      missing.propertiesToFetch = [.attribute("colour")]
      let ungrouped = FetchRequest<Counter>()
      ungrouped.propertiesToGroupBy = ["name"]
      ungrouped.propertiesToFetch = [.attribute("label")]
      return [attempt(missing), attempt(ungrouped)]
    }
    #expect(errors[0] == .unknownProperty(entity: "Counter", property: "colour"))
    guard case .invalidFetch(let reason)? = errors[1] else {
      Issue.record("expected invalidFetch, got \(String(describing: errors[1]))")
      return
    }
    #expect(reason.contains("Counter.label"))
  }

  @Test("fetchBatchSize: objects load a batch at a time, on first use")
  func batchedFaults() async throws {
    let container = makeContainer()
    try await container.performBackgroundTask { context in
      for index in 0..<25 { Book(context: context).title = "b\(index)" }
      try context.save()
    }
    let context = container.newBackgroundContext()
    let (before, title, after, all) = try await context.perform {
      let request = FetchRequest<Book>()
      request.fetchBatchSize = 10
      let books = try context.fetch(request)
      let before = books.filter(\.isFault).count
      let title = books[12].title
      let after = books.map(\.isFault)
      return (before, title, after, books.map(\.title))
    }
    #expect(before == 25)
    #expect(title == "b12")
    #expect(
      after == Array(repeating: true, count: 10) + Array(repeating: false, count: 10)
        + Array(repeating: true, count: 5))
    #expect(all == (0..<25).map { "b\($0)" })
    #expect(container.violations.isEmpty, "\(container.violations)")
  }
}
