import Foundation
import ManagedObjectCore
import Testing

/// Two contexts read the same counter; the first saves, then the second saves a stale copy.
/// Awaiting each step makes the interleaving exact, with no timing involved.
private struct StaleSave {
  let container = makeContainer("stale-save")
  let first: ManagedObjectContext
  let second: ManagedObjectContext
  let id: ManagedObjectID

  init() async throws {
    let setup = container.newBackgroundContext()
    id = try await setup.perform {
      let counter = Counter(context: setup)
      counter.name = "n"
      try setup.save()
      return counter.objectID
    }
    first = container.newBackgroundContext()
    second = container.newBackgroundContext()
    // Each context keeps its stale copy across blocks, as an app holding it would.
    first.retainsRegisteredObjects = true
    second.retainsRegisteredObjects = true
    let id = id
    _ = try await first.perform { [first] in try first.existingObject(with: id) }
    _ = try await second.perform { [second] in try second.existingObject(with: id) }
  }

  func edit(
    _ context: ManagedObjectContext, _ change: @escaping @Sendable (Counter) -> Void
  ) async throws {
    // The copy registered at setup, stale by design: no refetch that might refresh it.
    try await context.perform {
      let counter = try #require(context.registeredObjects.first as? Counter)
      change(counter)
    }
  }

  func stored() async throws -> (name: String, value: Int, label: String) {
    let reader = container.newBackgroundContext()
    let id = id
    return try await reader.perform {
      let counter = try reader.existingObject(with: id, as: Counter.self)
      return (counter.name, counter.value, counter.label)
    }
  }
}

@Suite("Saving: optimistic locking and merge policies")
struct MergePolicyTests {
  @Test("Under .error (the default) a stale save throws a conflict naming object and properties")
  func errorPolicy() async throws {
    let scenario = try await StaleSave()
    try await scenario.edit(scenario.first) { $0.value = 10 }
    try await scenario.first.perform { try scenario.first.save() }
    try await scenario.edit(scenario.second) { $0.label = "second" }
    #expect(scenario.second.mergePolicy == .error)
    let error = await scenario.second.perform { scenario.second.saveError() }
    guard case .mergeConflict(let conflicts)? = error else {
      Issue.record("expected a merge conflict, got \(String(describing: error))")
      return
    }
    #expect(conflicts.map(\.objectID) == [scenario.id])
    #expect(conflicts.first?.changedInStore == ["value"])
    #expect(conflicts.first?.changedInContext == ["label"])
    let stored = try await scenario.stored()
    #expect(stored.value == 10)
    #expect(stored.label == "")
    #expect(await scenario.second.perform { scenario.second.hasChanges })
  }

  @Test("mergeByPropertyObjectTrump: the context's properties win, the store's others stay")
  func objectTrump() async throws {
    let scenario = try await StaleSave()
    scenario.second.mergePolicy = .mergeByPropertyObjectTrump
    try await scenario.edit(scenario.first) {
      $0.value = 10
      $0.label = "first"
    }
    try await scenario.first.perform { try scenario.first.save() }
    try await scenario.edit(scenario.second) { $0.value = 20 }
    try await scenario.second.perform { try scenario.second.save() }
    let stored = try await scenario.stored()
    #expect(stored.value == 20)
    #expect(stored.label == "first")
  }

  /// The 2024 talk's lost update (2024 talk, slides 7, 12), with the workshop's figures: the
  /// slides' digits are lost in the extraction.
  @Test("mergeByPropertyObjectTrump loses an increment: +10, not +20")
  func objectTrumpLosesIncrement() async throws {
    let scenario = try await StaleSave()
    scenario.second.mergePolicy = .mergeByPropertyObjectTrump
    try await scenario.edit(scenario.first) { $0.value += 10 }
    try await scenario.edit(scenario.second) { $0.value += 10 }
    try await scenario.first.perform { try scenario.first.save() }
    try await scenario.second.perform { try scenario.second.save() }
    #expect(try await scenario.stored().value == 10)
  }

  @Test("mergeByPropertyStoreTrump: the store's properties win, the context's others are saved")
  func storeTrump() async throws {
    let scenario = try await StaleSave()
    scenario.second.mergePolicy = .mergeByPropertyStoreTrump
    try await scenario.edit(scenario.first) { $0.value = 10 }
    try await scenario.first.perform { try scenario.first.save() }
    try await scenario.edit(scenario.second) {
      $0.value = 20
      $0.label = "second"
    }
    try await scenario.second.perform { try scenario.second.save() }
    let stored = try await scenario.stored()
    #expect(stored.value == 10)
    #expect(stored.label == "second")
    let local = try await scenario.second.perform {
      try scenario.second.existingObject(with: scenario.id, as: Counter.self).value
    }
    #expect(local == 10)
  }

  @Test("overwrite writes every property: a stale value silently replaces the store's")
  func overwrite() async throws {
    let scenario = try await StaleSave()
    scenario.second.mergePolicy = .overwrite
    try await scenario.edit(scenario.first) { $0.label = "first" }
    try await scenario.first.perform { try scenario.first.save() }
    try await scenario.edit(scenario.second) { $0.value = 20 }
    try await scenario.second.perform { try scenario.second.save() }
    let stored = try await scenario.stored()
    #expect(stored.value == 20)
    #expect(stored.label == "")
  }

  @Test("rollback: the conflicting object takes the store's state, its changes are dropped")
  func rollbackPolicy() async throws {
    let scenario = try await StaleSave()
    scenario.second.mergePolicy = .rollback
    try await scenario.edit(scenario.first) { $0.value = 10 }
    try await scenario.first.perform { try scenario.first.save() }
    try await scenario.edit(scenario.second) { $0.label = "second" }
    let local = try await scenario.second.perform {
      try scenario.second.save()
      let counter = try scenario.second.existingObject(with: scenario.id, as: Counter.self)
      return (counter.value, counter.label, scenario.second.hasChanges)
    }
    #expect(local.0 == 10)
    #expect(local.1 == "")
    #expect(local.2 == false)
    let stored = try await scenario.stored()
    #expect(stored.value == 10)
    #expect(stored.label == "")
  }

  @Test("Saving an edit of a row another context deleted is a conflict under .error")
  func deletedInStore() async throws {
    let scenario = try await StaleSave()
    try await scenario.first.perform {
      scenario.first.delete(try scenario.first.existingObject(with: scenario.id))
      try scenario.first.save()
    }
    try await scenario.edit(scenario.second) { $0.value = 1 }
    let error = await scenario.second.perform { scenario.second.saveError() }
    guard case .mergeConflict(let conflicts)? = error else {
      Issue.record("expected a merge conflict, got \(String(describing: error))")
      return
    }
    #expect(conflicts.first?.isDeletedInStore == true)
  }

  @Test("Under a merge policy, the store's deletion wins over a stale edit")
  func deletedInStoreMerged() async throws {
    let scenario = try await StaleSave()
    scenario.second.mergePolicy = .mergeByPropertyObjectTrump
    try await scenario.first.perform {
      scenario.first.delete(try scenario.first.existingObject(with: scenario.id))
      try scenario.first.save()
    }
    try await scenario.edit(scenario.second) { $0.value = 1 }
    try await scenario.second.perform { try scenario.second.save() }
    let reader = scenario.container.newBackgroundContext()
    let count = try await reader.perform { try reader.count(for: FetchRequest<Counter>()) }
    #expect(count == 0)
  }

  @Test("A save whose conflicts fail keeps every other object of it out of the store")
  func conflictIsAtomic() async throws {
    let scenario = try await StaleSave()
    try await scenario.edit(scenario.first) { $0.value = 10 }
    try await scenario.first.perform { try scenario.first.save() }
    try await scenario.edit(scenario.second) { $0.value = 30 }
    await scenario.second.perform {
      let extra = Counter(context: scenario.second)
      extra.name = "extra"
      #expect(throws: PersistenceError.self) { try scenario.second.save() }
    }
    let reader = scenario.container.newBackgroundContext()
    let count = try await reader.perform { try reader.count(for: FetchRequest<Counter>()) }
    #expect(count == 1)
    #expect(try await scenario.stored().value == 10)
  }
}
