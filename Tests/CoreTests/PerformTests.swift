import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// Calls the fire-and-forget `perform(_:)`: in an async function, `context.perform { }` picks the
/// async overload, as it does with Core Data.
func enqueue(_ context: ManagedObjectContext, _ block: @escaping @Sendable () -> Void) {
  context.perform(block)
}

/// Calls the fire-and-forget `performBackgroundTask(_:)`, for the same reason.
func enqueueBackgroundTask(
  _ container: PersistentContainer, _ block: @escaping @Sendable (ManagedObjectContext) -> Void
) {
  container.performBackgroundTask(block)
}

private struct Refusal: Error, Equatable {
  let reason: String
}

@Suite("perform, performAndWait and background tasks")
struct PerformTests {
  @Test("async perform returns the block's value and rethrows its typed error")
  func typedThrows() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let value = await context.perform { 21 * 2 }
    #expect(value == 42)
    do {
      try await context.perform { () throws(Refusal) -> Void in throw Refusal(reason: "no") }
      Issue.record("the error was not rethrown")
    } catch {
      // `error` is statically a Refusal: typed throws made it through the queue hop.
      #expect(error.reason == "no")
    }
  }

  @Test("Fire-and-forget perform blocks run one at a time, in order")
  func fireAndForgetIsSerialAndOrdered() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    let log = Mutex<[Int]>([])
    let inside = Mutex(0)
    let overlapped = Mutex(false)
    for index in 0..<200 {
      enqueue(context) {
        let now = inside.withLock { value -> Int in
          value += 1
          return value
        }
        if now > 1 { overlapped.withLock { $0 = true } }
        log.withLock { $0.append(index) }
        inside.withLock { $0 -= 1 }
      }
    }
    await context.perform(schedule: .enqueued) {}
    #expect(log.withLock { $0 } == Array(0..<200))
    #expect(!overlapped.withLock { $0 })
  }

  @Test("performAndWait is reentrant and can nest another context's performAndWait")
  func performAndWaitNesting() async throws {
    let (titles, violations) = try await withTimeout(.seconds(20), "nested performAndWait") {
      try await offThePool {
        let container = makeContainer()
        let outer = container.newBackgroundContext()
        let inner = container.newBackgroundContext()
        let titles = try outer.performAndWait {
          try outer.performAndWait {
            let book = Book(context: outer)
            book.title = "outer"
            // Legal at run time, yet the compiler refuses the object in a @Sendable block.
            let outerBook = Smuggled(book)
            try inner.performAndWait {
              Book(context: inner).title = "inner"
              outerBook.value.pages = 1  // the outer context is still usable: it is waiting for us
              try inner.save()
            }
            try outer.save()
            return try outer.fetch(FetchRequest<Book>(sortDescriptors: [SortDescriptor(\.title)]))
              .map(\.title)
          }
        }
        return (titles, container.violations)
      }
    }
    #expect(titles == ["inner", "outer"])
    #expect(violations.isEmpty, "\(violations)")
  }

  /// Apple, `ScheduledTaskType.immediate`: "Immediate tasks execute right away if the context
  /// operates within the current scope; otherwise, the context enqueues the task." The async
  /// `perform` is `@preconcurrency nonisolated` on Apple's page, not `nonisolated(nonsending)`,
  /// and the SDK interfaces found (iOS 15.0 to 17.4) mark it with no executor-inheriting
  /// attribute, so the call leaves the caller's actor before it looks at `schedule` (SE-0338): even
  /// on the main actor, `.immediate` finds itself off the main queue and enqueues like
  /// `.enqueued`, behind a block queued before it. The fidelity notes (Tests/FIDELITY.md) give the
  /// sources and what is not known.
  @Test("The async perform leaves the caller's actor: .immediate from the main actor enqueues")
  @MainActor
  func scheduleOnTheMainQueue() async throws {
    let container = makeContainer()
    let view = container.viewContext
    let log = Mutex<[String]>([])
    enqueue(view) { log.withLock { $0.append("queued before") } }
    await view.perform(schedule: .immediate) { log.withLock { $0.append("immediate") } }
    await view.perform(schedule: .enqueued) { log.withLock { $0.append("enqueued") } }
    #expect(log.withLock { $0 } == ["queued before", "immediate", "enqueued"])
  }

  @Test("The view context is legal on the main actor without perform")
  @MainActor
  func viewContextOnMainActor() async throws {
    let container = makeContainer()
    let view = container.viewContext
    let book = Book(context: view)
    book.title = "main"
    try view.save()
    #expect(try view.count(for: FetchRequest<Book>()) == 1)
    #expect(container.violations.isEmpty, "\(container.violations)")
  }

  @Test("performBackgroundTask runs on a fresh private context, in both forms")
  func backgroundTasks() async throws {
    let container = makeContainer()
    let count = try await container.performBackgroundTask { context in
      Book(context: context).title = "bg"
      try context.save()
      return try context.count(for: FetchRequest<Book>())
    }
    #expect(count == 1)
    let done = Gate()
    enqueueBackgroundTask(container) { context in
      Book(context: context).title = "bg2"
      try? context.save()
      done.open()
    }
    #expect(await done.opened())
    let total = try await container.performBackgroundTask {
      try $0.count(for: FetchRequest<Book>())
    }
    #expect(total == 2)
    #expect(container.violations.isEmpty)
  }
}
