import Foundation
import ManagedObjectCore
import Testing

@Suite("Batch requests, uniqueness constraints and upserts")
struct BatchRequestTests {
  private func counters(_ container: PersistentContainer) async throws -> [(String, Int)] {
    try await container.performBackgroundTask { context in
      try context.fetch(FetchRequest<Counter>(sortDescriptors: [SortDescriptor(\.name)]))
        .map { ($0.name, $0.value) }
    }
  }

  @Test("A batch insert from dictionaries writes rows with defaults, straight to the store")
  func insertFromDictionaries() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let result = try await context.perform {
      try context.execute(
        BatchInsertRequest<Counter>(objects: (0..<100).map { ["name": "c\($0)", "value": $0] }))
    }
    #expect(result.count == nil && result.objectIDs == nil && result.changes == nil)
    let rows = try await counters(container)
    #expect(rows.count == 100)
    #expect(rows.first! == ("c0", 0))
    let labels = try await container.performBackgroundTask { context in
      Set(try context.fetch(FetchRequest<Counter>()).map(\.label))
    }
    #expect(labels == [""], "unset attributes take their defaults")
    let registered = await context.perform { context.registeredObjects.count }
    #expect(registered == 0, "a batch insert makes no objects")
  }

  @Test("A dictionary handler fills one row per call; returning true ends the batch")
  func insertFromDictionaryHandler() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let result = try await context.perform {
      var next = 0
      var request = BatchInsertRequest<Counter>(dictionaryHandler: { row in
        guard next < 10 else { return true }
        row["name"] = "h\(next)"
        row["value"] = next * 2
        next += 1
        return false
      })
      request.resultType = .count
      return try context.execute(request)
    }
    #expect(result.count == 10)
    #expect(try await counters(container).map(\.1).reduce(0, +) == 90)
  }

  @Test("A managed-object handler fills a scratch object per row; it is never inserted itself")
  func insertFromObjectHandler() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let (result, registered, changed) = try await context.perform {
      var next = 0
      var request = BatchInsertRequest<Counter>(managedObjectHandler: { counter in
        guard next < 5 else { return true }
        counter.name = "o\(next)"
        counter.value = 100 + next
        next += 1
        return false
      })
      request.resultType = .objectIDs
      return (
        try context.execute(request), context.registeredObjects.count, context.hasChanges
      )
    }
    #expect(result.objectIDs?.count == 5)
    #expect(result.changes?.insertedObjectIDs.count == 5)
    #expect(registered == 0)
    #expect(!changed)
    #expect(try await counters(container).map(\.0) == ["o0", "o1", "o2", "o3", "o4"])
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("A batch naming a missing attribute, a relationship or a wrong type fails, writing nothing")
  func insertErrors() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let errors = await context.perform { () -> [PersistenceError?] in
      func attempt(_ rows: [[String: any AttributeValue]]) -> PersistenceError? {
        do throws(PersistenceError) {
          try context.execute(BatchInsertRequest<Book>(objects: rows))
          return nil
        } catch {
          return error
        }
      }
      return [
        attempt([["title": "ok"], ["colour": "red"]]),
        attempt([["title": "ok"], ["author": "someone"]]),
        attempt([["title": "ok"], ["pages": "many"]]),
      ]
    }
    #expect(errors[0] == .unknownProperty(entity: "Book", property: "colour"))
    #expect(errors[1] == .unknownProperty(entity: "Book", property: "author"))
    #expect(errors[2] == .typeMismatch(entity: "Book", property: "pages", expected: "Int"))
    let count = try await container.performBackgroundTask {
      try $0.count(for: FetchRequest<Book>())
    }
    #expect(count == 0)
  }

  @Test("A batch update changes matching rows; contexts see it only after merging its changes")
  func updateAndMerge() async throws {
    let container = makeContainer()
    let setup = container.newBackgroundContext()
    _ = try await setup.perform {
      try setup.execute(
        BatchInsertRequest<Counter>(objects: (0..<10).map { ["name": "c\($0)", "value": $0] }))
    }
    let reader = container.newBackgroundContext()
    reader.retainsRegisteredObjects = true  // as an app holding it would
    let low = try await reader.perform {
      try reader.fetch(FetchRequest<Counter>(predicate: #Predicate { $0.value < 3 })).count
    }
    #expect(low == 3)
    let result = try await setup.perform {
      var request = BatchUpdateRequest<Counter>(
        predicate: #Predicate { $0.value < 5 }, propertiesToUpdate: ["label": "small"])
      request.resultType = .objectIDs
      return try setup.execute(request)
    }
    #expect(result.objectIDs?.count == 5)
    let stale = await reader.perform {
      reader.registeredObjects.compactMap { ($0 as? Counter)?.label }
    }
    #expect(stale == ["", "", ""], "a batch update does not touch contexts")
    let changes = try #require(result.changes)
    ManagedObjectContext.mergeChanges(fromRemoteContextSave: changes, into: [reader])
    let merged = await reader.perform {
      reader.registeredObjects.compactMap { ($0 as? Counter)?.label }
    }
    #expect(merged == ["small", "small", "small"])
    let error = await setup.perform { () -> PersistenceError? in
      do throws(PersistenceError) {
        try setup.execute(BatchUpdateRequest<Counter>(propertiesToUpdate: ["colour": "red"]))
        return nil
      } catch {
        return error
      }
    }
    #expect(error == .unknownProperty(entity: "Counter", property: "colour"))
  }

  @Test("A batch delete honours the fetch request's predicate, order and limit")
  func deleteWithFetchLimit() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let (result, remaining) = try await context.perform {
      try context.execute(
        BatchInsertRequest<Counter>(objects: (0..<10).map { ["name": "c\($0)", "value": $0] }))
      let registered = try context.fetch(FetchRequest<Counter>())
      var request = BatchDeleteRequest(
        fetchRequest: FetchRequest<Counter>(
          predicate: #Predicate { $0.value >= 2 },
          sortDescriptors: [SortDescriptor(\.value, order: .reverse)], fetchLimit: 3))
      request.resultType = .objectIDs
      let result = try context.execute(request)
      ManagedObjectContext.mergeChanges(fromRemoteContextSave: result.changes!, into: [context])
      return (result, (registered.count, context.registeredObjects.count))
    }
    #expect(result.objectIDs?.count == 3)
    #expect(try await counters(container).map(\.1) == [0, 1, 2, 3, 4, 5, 6])
    // The merge removes each deleted object from memory (Apple, `NSBatchDeleteRequest`; see
    // `RemoteMergeDeletionTests`).
    #expect(remaining == (10, 7), "merging the deletions removes the objects from the context")
  }

  @Test("Upsert: a batch insert whose key exists updates the row under ObjectTrump")
  func upsert() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    context.mergePolicy = .mergeByPropertyObjectTrump
    let (first, second) = try await context.perform {
      var request = BatchInsertRequest<Tag>(objects: [
        ["name": "swift", "uses": 1], ["name": "core data", "uses": 2],
      ])
      request.resultType = .objectIDs
      let first = try context.execute(request)
      request = BatchInsertRequest<Tag>(objects: [
        ["name": "swift", "uses": 10, "color": "orange"], ["name": "actors", "uses": 3],
      ])
      request.resultType = .objectIDs
      return (first, try context.execute(request))
    }
    #expect(first.changes?.insertedObjectIDs.count == 2)
    #expect(second.changes?.insertedObjectIDs.count == 1)
    #expect(second.changes?.updatedObjectIDs.count == 1)
    let tags = try await container.performBackgroundTask { context in
      try context.fetch(FetchRequest<Tag>(sortDescriptors: [SortDescriptor(\.name)]))
        .map { "\($0.name):\($0.uses):\($0.color)" }
    }
    #expect(tags == ["actors:3:none", "core data:2:none", "swift:10:orange"])
  }

  @Test("Under .error an existing key is a conflict, and the batch writes nothing")
  func upsertRefusedUnderError() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let error = try await context.perform { () -> PersistenceError? in
      try context.execute(BatchInsertRequest<Tag>(objects: [["name": "swift"]]))
      do throws(PersistenceError) {
        try context.execute(
          BatchInsertRequest<Tag>(objects: [["name": "new"], ["name": "swift", "uses": 5]]))
        return nil
      } catch {
        return error
      }
    }
    guard case .constraintConflict(let conflicts)? = error else {
      Issue.record("expected a constraint conflict, got \(String(describing: error))")
      return
    }
    #expect(conflicts.map(\.properties) == [["name"]])
    let names = try await container.performBackgroundTask { context in
      try context.fetch(FetchRequest<Tag>()).map(\.name)
    }
    #expect(names == ["swift"])
  }

  @Test("Two rows of one batch with the same key: one row, the later wins; a conflict under .error")
  func conflictWithinOneBatch() async throws {
    for policy in [MergePolicy.mergeByPropertyObjectTrump, .error] {
      let container = makeContainer()
      let context = container.newBackgroundContext()
      context.mergePolicy = policy
      let error = await context.perform { () -> PersistenceError? in
        do throws(PersistenceError) {
          try context.execute(
            BatchInsertRequest<Tag>(objects: [
              ["name": "twice", "uses": 1], ["name": "twice", "uses": 2],
            ]))
          return nil
        } catch {
          return error
        }
      }
      let uses = try await container.performBackgroundTask { context in
        try context.fetch(FetchRequest<Tag>()).map(\.uses)
      }
      if policy == .error {
        #expect(error.map { if case .constraintConflict = $0 { true } else { false } } == true)
        #expect(uses.isEmpty)
      } else {
        #expect(error == nil)
        #expect(uses == [2])
      }
    }
  }

  @Test("A save that inserts a taken key: a conflict under .error, an upsert under ObjectTrump")
  func constraintsOnSave() async throws {
    let container = makeContainer()
    let existing = try await container.performBackgroundTask { context in
      let tag = Tag(context: context)
      tag.name = "swift"
      tag.uses = 1
      try context.save()
      return tag.objectID
    }
    let strict = container.newBackgroundContext()
    let error = await strict.perform {
      let tag = Tag(context: strict)
      tag.name = "swift"
      return strict.saveError()
    }
    guard case .constraintConflict(let conflicts)? = error else {
      Issue.record("expected a constraint conflict, got \(String(describing: error))")
      return
    }
    #expect(conflicts.map(\.existingObjectID) == [existing])
    #expect(conflicts.map(\.entityName) == ["Tag"])
    let merging = container.newBackgroundContext()
    merging.mergePolicy = .mergeByPropertyObjectTrump
    let (id, uses) = try await merging.perform {
      let tag = Tag(context: merging)
      tag.name = "swift"
      tag.uses = 7
      try merging.save()
      return (tag.objectID, tag.uses)
    }
    #expect(id == existing, "the inserted object became the row that held the key")
    #expect(uses == 7)
    let count = try await container.performBackgroundTask {
      try $0.count(for: FetchRequest<Tag>())
    }
    #expect(count == 1)
  }
}
