import Dispatch
import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

// The checker's edge cases for code that waits in `DispatchQueue.sync`: the rows of
// `CheckerEdgeCase.all` about which queue a synchronous block belongs to.

// MARK: Synchronous dispatch onto another queue

// `DispatchQueue.sync` runs its block on the calling thread when it can: "As an optimization,
// dispatch_sync() invokes the workitem on the thread which submitted the workitem, except when the
// passed queue is the main queue or a queue targetting it" (libdispatch's dispatch/queue.h,
// dispatch_sync; Apple's page:
// developer.apple.com/documentation/dispatch/dispatchqueue/sync(execute:)).
// Linux does it for the main queue too: in this test process main-queue blocks run on Dispatch's
// worker threads, not on the main thread, and a `main.sync` block runs on the calling thread
// (observed); Darwin runs it on the main thread. So the core decides by the queue the block was
// submitted to:
// - inside `DispatchQueue.main.sync` the code is on the main queue and may use a main-queue
//   context; it is not in the perform block of the private context whose perform called `sync`;
// - inside `someSerialQueue.sync` the code is on that queue: not in a perform block, even when
//   its caller was. Whether it holds the main queue depends on its caller, which Linux cannot see
//   (Tests/FIDELITY.md, "Where it differs from Core Data, on purpose"): on Darwin the main
//   thread holds the main queue in any block it runs, so main-actor code there may use the viewContext inside
//   `sync`; on Linux the core reports it and says what it cannot see.
// The core's own performAndWait is different: Core Data runs its block "on the context's queue"
// and documents it as reentrant, "safe to call the method again, from within the closure"
// (NSManagedObjectContext.performAndWait(_:),
// developer.apple.com/documentation/coredata/nsmanagedobjectcontext/performandwait(_:)-ypye), and
// the core knows its caller waits for it (see the matrix's nested performAndWait rows).

extension CheckerEdgeCase {
  static let syncDispatchCases: [CheckerEdgeCase] = [
    .illegal(
      "A's object read inside DispatchQueue.main.sync called from A's perform",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A",
        at: "on the main queue", "outside any perform block", notAt: ["inside perform of"])
    ) { name in
      let f = try await AccessPattern.fixture(name)
      let title = await f.a.perform { DispatchQueue.main.sync { f.book.title } }
      try AccessPattern.check(title == "Dune", "the recorded read returned '\(title)'")
      return f.container
    },
    .legal("viewContext used inside DispatchQueue.main.sync called from A's perform") { name in
      let f = try await AccessPattern.fixture(name)
      let view = f.container.viewContext
      let count = try await f.a.perform {
        try DispatchQueue.main.sync {
          let book = Book(context: view)
          book.title = "Emma"
          try view.save()
          return try view.count(for: FetchRequest<Book>())
        }
      }
      try AccessPattern.check(count == 2, "the viewContext counted \(count) books instead of 2")
      return f.container
    },
    .illegal(
      "A's object read inside a serial queue's sync called from A's perform",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A",
        at: "on queue 'CheckerEdge.lock'", "outside any perform block",
        notAt: ["inside perform of", "Core Data allows it"])
    ) { name in
      let f = try await AccessPattern.fixture(name)
      let lock = DispatchQueue(label: "CheckerEdge.lock")
      let title = await f.a.perform { lock.sync { f.book.title } }
      try AccessPattern.check(title == "Dune", "the recorded read returned '\(title)'")
      return f.container
    },
    mainActorSyncCase,
  ]

  /// Main-actor code waits in a serial queue's `sync` and reads a viewContext object in the block.
  /// It holds the main queue, so by Core Data's rule the read is legal. Darwin runs the block on
  /// the main thread, where the core counts the main queue as held, as `dispatch_assert_queue`
  /// does; Linux runs it on a worker thread, and has no public check that does not end the
  /// process, so there the core reports the read and says what it cannot see
  /// (Tests/FIDELITY.md, "Where it differs from Core Data, on purpose").
  private static var mainActorSyncCase: CheckerEdgeCase {
    let name = "viewContext object read inside a serial queue's sync called from the main actor"
    #if canImport(Darwin)
      return .legal(name) { try await mainActorReadsViewObjectInSerialSync($0) }
    #else
      return .illegal(
        name,
        .init(
          .outsidePerform, .read, "Book", "title", in: "viewContext",
          at: "in a Swift task on queue 'CheckerEdge.lock'", "outside any perform block",
          "Core Data allows it on Apple platforms",
          "on Linux the core cannot see the waiting caller",
          notAt: ["cooperative thread pool", "on the main queue"])
      ) { try await mainActorReadsViewObjectInSerialSync($0) }
    #endif
  }
}

// MARK: - Fixtures

/// Main-actor code holds the main queue while it waits in `sync`, but the block it waits for is
/// the serial queue's, and it runs on a thread that is not the cooperative pool's.
@MainActor
private func mainActorReadsViewObjectInSerialSync(
  _ name: String
) async throws -> PersistentContainer {
  let container = PersistentContainer(name: name, concurrencyChecking: .record)
  let view = container.viewContext
  let book = Book(context: view)
  book.title = "Dune"
  try view.save()
  let title = DispatchQueue(label: "CheckerEdge.lock").sync { book.title }
  try AccessPattern.check(title == "Dune", "the recorded read returned '\(title)'")
  return container
}
