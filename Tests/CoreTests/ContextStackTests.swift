import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

@Suite("The MagicalRecord stack")
struct ContextStackTests {
  @Test("The stack's shape: root on the store, default context on the main queue under it")
  func shape() {
    let stack = ContextStack(container: makeContainer())
    #expect(stack.rootSavingContext.parent == nil)
    #expect(stack.rootSavingContext.concurrencyType == .privateQueue)
    #expect(stack.defaultContext.parent === stack.rootSavingContext)
    #expect(stack.defaultContext.concurrencyType == .mainQueue)
    #expect(stack.defaultContext.automaticallyMergesChangesFromParent)
    let local = stack.newContext()
    #expect(local.parent === stack.rootSavingContext)
    #expect(local.concurrencyType == .privateQueue)
  }

  @Test("save { localContext in … } async: the change reaches the store and the default context")
  func saveAsync() async throws {
    let container = makeContainer()
    let stack = ContextStack(container: container)
    let id = try await stack.save { local in
      let book = Book(context: local)
      book.title = "v1"
      local.obtainPermanentIDs(for: [book])
      return book.objectID
    }
    #expect(try await storedBookTitles(in: container) == ["v1"])
    // The default context keeps what it shows, as a UI holding the object would.
    stack.defaultContext.retainsRegisteredObjects = true
    let shown = try await stack.defaultContext.perform {
      try stack.defaultContext.existingObject(with: id, as: Book.self).title
    }
    #expect(shown == "v1")
    try await stack.save { local in
      try local.existingObject(with: id, as: Book.self).title = "v2"
    }
    // The root's save was merged into the default context on the main queue; this runs after.
    let merged = try await stack.defaultContext.perform(schedule: .enqueued) {
      try #require(stack.defaultContext.registeredObjects.first as? Book).title
    }
    #expect(merged == "v2")
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("save(_:completion:) returns at once and completes after the store has the change")
  func saveWithCompletion() async throws {
    let container = makeContainer()
    let stack = ContextStack(container: container)
    let outcome = Mutex<Result<Void, any Error>?>(nil)
    let done = Gate()
    stack.save(
      { local in Book(context: local).title = "completed" },
      completion: { result in
        outcome.withLock { $0 = result }
        done.open()
      })
    #expect(await done.opened())
    #expect(outcome.withLock { (try? $0?.get()) != nil })
    #expect(try await storedBookTitles(in: container) == ["completed"])
  }

  @Test("saveAndWait blocks until the store has the change")
  func saveAndWait() async throws {
    let container = makeContainer()
    let stack = ContextStack(container: container)
    try await withTimeout(.seconds(20), "saveAndWait") {
      try await offThePool {
        try stack.saveAndWait { local in Book(context: local).title = "waited" }
      }
    }
    #expect(try await storedBookTitles(in: container) == ["waited"])
  }

  @Test("A failing block or save reports its error, and nothing reaches the store")
  func failuresReachNothing() async throws {
    struct Refused: Error {}
    let container = makeContainer()
    let stack = ContextStack(container: container)
    await #expect(throws: Refused.self) {
      try await stack.save { local in
        Book(context: local).title = "never"
        throw Refused()
      }
    }
    await #expect(throws: PersistenceError.self) {
      try await stack.save { local in _ = Sample(context: local) }  // required attribute unset
    }
    let failure = Mutex<(any Error)?>(nil)
    let done = Gate()
    stack.save(
      { local in _ = Sample(context: local) },
      completion: { result in
        if case .failure(let error) = result { failure.withLock { $0 = error } }
        done.open()
      })
    #expect(await done.opened())
    #expect(failure.withLock { $0 is PersistenceError })
    #expect(try await storedBookTitles(in: container).isEmpty)
    let samples = try await container.performBackgroundTask {
      try $0.count(for: FetchRequest<Sample>())
    }
    #expect(samples == 0)
  }
}
