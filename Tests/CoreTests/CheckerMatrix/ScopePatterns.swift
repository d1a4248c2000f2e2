import Dispatch
import Foundation
import ManagedObjectCore
import WorkshopSupport

// Where a perform scope starts and ends: performAndWait nested across three contexts and across a
// parent and its child, blocks enqueued from inside a scope, tasks and threads started there, and
// an actor whose executor runs its jobs inside a context's perform (Step 4's design).
//
// Core Data's rule: a private-queue context "can be used only on that queue", reached through
// perform and performAndWait; a main-queue context "can only be used on the main queue" (Core
// Data Programming Guide, "Concurrency"). performAndWait "supports reentrancy" (Apple,
// NSManagedObjectContext.performAndWait(_:)): its caller is blocked, so code nested in it still
// runs in the caller's block. A block or task that code in a perform merely starts runs later,
// somewhere else: it is in no perform block unless its own queue or executor puts it in one.

extension AccessPattern {
  static let scopePatterns: [AccessPattern] = [
    .legal("performAndWait of A, B and C nested, the innermost touching all three") { f in
      let c = f.container.newBackgroundContext()
      c.name = "C"
      let (title, count, inserted) = try await onPlainQueue {
        try f.a.performAndWait {
          try f.b.performAndWait {
            try c.performAndWait {
              let count = try f.b.count(for: FetchRequest<Book>())
              let fresh = Book(context: c)
              fresh.title = "Emma"
              return (f.book.title, count, c.insertedObjects.count)
            }
          }
        }
      }
      try check(
        title == "Dune" && count == 1 && inserted == 1,
        "read '\(title)', B counted \(count), C holds \(inserted) inserts")
    },
    .illegal(
      "A's object read in C's performAndWait nested in B's perform",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A", at: "inside perform of 'B', 'C'",
        notAt: ["'A'"])
    ) { f in
      let c = f.container.newBackgroundContext()
      c.name = "C"
      await f.b.perform { c.performAndWait { _ = f.book.title } }
    },
    .illegal(
      "B used right after B's performAndWait returned inside A's perform",
      .init(
        .outsidePerform, .inspectChanges, nil, in: "B", at: "inside perform of 'A'",
        notAt: ["'B'"])
    ) { f in
      await f.a.perform {
        f.b.performAndWait { _ = f.b.hasChanges }
        _ = f.b.hasChanges
      }
    },
    .legal("a child's performAndWait inside its parent's perform touches both") { f in
      let child = f.a.newChildContext()
      let id = f.book.objectID
      let (parentTitle, childTitle) = try await f.a.perform {
        try child.performAndWait {
          (f.book.title, try child.existingObject(with: id, as: Book.self).title)
        }
      }
      try check(parentTitle == "Dune" && childTitle == "Dune", "\(parentTitle), \(childTitle)")
    },
    .legal("a parent's performAndWait inside its child's perform touches both") { f in
      let child = f.a.newChildContext()
      let id = f.book.objectID
      let pages = try await child.perform {
        let mine = try child.existingObject(with: id, as: Book.self)
        mine.pages = 500
        try child.save()
        // The block is @Sendable, so the child's object goes in unchecked; the caller is blocked
        // in the child's block, so the nested code may still use it.
        let kept = Smuggled(mine)
        return f.a.performAndWait { f.book.pages + kept.value.pages }
      }
      try check(pages == 1000, "the parent and the child read \(pages) pages in all")
    },
    .illegal(
      "a parent's object read in its child's perform",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A", at: "inside perform of 'child of A'")
    ) { f in
      let child = f.a.newChildContext()
      child.name = "child of A"
      await child.perform { _ = f.book.title }
    },
    .legal("the context's own perform enqueued inside its performAndWait") { f in
      try await onPlainQueue {
        f.a.performAndWait { enqueue(f.a) { f.book.pages = 9 } }
      }
      let pages = await f.a.perform(schedule: .enqueued) { f.book.pages }
      try check(pages == 9, "the enqueued block left \(pages) pages")
    },
    .illegal(
      "A's object read in B's perform enqueued from A's performAndWait",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A", at: "inside perform of 'B'",
        notAt: ["'A'"])
    ) { f in
      try await onPlainQueue {
        f.a.performAndWait { enqueue(f.b) { _ = f.book.title } }
      }
      // B's queue is serial: this runs after the block enqueued above.
      await f.b.perform(schedule: .enqueued) {}
    },
    .illegal(
      "A's object read in a Task started inside A's perform",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A", at: "in a Swift task",
        notAt: ["inside perform of"])
    ) { f in
      let title = await withCheckedContinuation { continuation in
        enqueue(f.a) { Task { continuation.resume(returning: f.book.title) } }
      }
      try check(title == "Dune", "the recorded read returned '\(title)'")
    },
    .illegal(
      "A's object read in DispatchQueue.main.async from A's perform",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A", at: "on the main queue",
        "outside any perform block")
    ) { f in
      let title = await withCheckedContinuation { continuation in
        enqueue(f.a) { DispatchQueue.main.async { continuation.resume(returning: f.book.title) } }
      }
      try check(title == "Dune", "the recorded read returned '\(title)'")
    },
    .legal("the viewContext used in DispatchQueue.main.async from A's perform") { f in
      let view = f.container.viewContext
      let count = try await withCheckedThrowingContinuation { continuation in
        enqueue(f.a) {
          DispatchQueue.main.async {
            continuation.resume(with: Result { try saveDuneAndCount(in: view) })
          }
        }
      }
      try check(count == 2, "the viewContext counted \(count) books instead of 2")
    },
    .illegal(
      "A's object read on a Thread",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A", at: threadLocation,
        "outside any perform block", notAt: ["queue", "task"])
    ) { f in
      let title = await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: f.book.title) }
        thread.name = "CheckerMatrix.thread"
        thread.start()
      }
      try check(title == "Dune", "the recorded read returned '\(title)'")
    },
    .legal("an actor on A's queue uses A's objects before and after it suspends") { f in
      let actor = ContextQueueActor(f.a)
      let titles = await actor.titlesAcrossSuspension(f)
      try check(titles == ["Dune", "Dune"], "read \(titles)")
    },
    .legal("a Task started on an actor on A's queue inherits its executor") { f in
      let title = await ContextQueueActor(f.a).titleInChildTask(f)
      try check(title == "Dune", "read '\(title)'")
    },
    .illegal(
      "B's object read on an actor on A's queue",
      .init(
        .outsidePerform, .read, "Book", "title", in: "B", at: "inside perform of 'A'",
        notAt: ["'B'"])
    ) { f in
      let id = f.book.objectID
      let theirs = try await f.b.perform {
        Smuggled(try f.b.existingObject(with: id, as: Book.self))
      }
      let title = await ContextQueueActor(f.a).title(of: theirs)
      try check(title == "Dune", "the recorded read returned '\(title)'")
    },
    .illegal(
      "A's object read in a detached task started on an actor on A's queue",
      .init(
        .outsidePerform, .read, "Book", "title", in: "A", at: "in a Swift task",
        notAt: ["inside perform of"])
    ) { f in
      let title = await ContextQueueActor(f.a).titleInDetachedTask(f)
      try check(title == "Dune", "the recorded read returned '\(title)'")
    },
  ]
}

/// Where a named `Thread` is said to be. Linux threads inherit their creator's name, and a name
/// set before `start()` never reaches the thread there (swift-corelibs-foundation, observed), so
/// the core names threads only on Darwin.
#if canImport(Darwin)
  private let threadLocation = "on thread 'CheckerMatrix.thread'"
#else
  private let threadLocation = "on a background thread"
#endif

/// Runs an actor's jobs inside a context's `perform`, as Step 4's `CoreDataExecutor` does.
private final class ContextQueueExecutor: SerialExecutor {
  let context: ManagedObjectContext

  init(_ context: ManagedObjectContext) {
    self.context = context
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedSerialExecutor()
    context.perform { job.runSynchronously(on: executor) }
  }

  func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  func checkIsolated() {
    precondition(context.isInPerformScope, "not inside the context's perform")
  }
}

/// An actor whose code runs on its context's queue, inside the context's perform.
private actor ContextQueueActor {
  private let executor: ContextQueueExecutor

  init(_ context: ManagedObjectContext) {
    executor = ContextQueueExecutor(context)
  }

  nonisolated var unownedExecutor: UnownedSerialExecutor {
    executor.asUnownedSerialExecutor()
  }

  /// Each resumption after a suspension is a new job, so a new perform block.
  func titlesAcrossSuspension(_ f: AccessPattern.Fixture) async -> [String] {
    let before = f.book.title
    await Task.yield()
    return [before, f.book.title]
  }

  func title(of book: Smuggled<Book>) -> String {
    book.value.title
  }

  private func bookTitle(_ f: AccessPattern.Fixture) -> String {
    f.book.title
  }

  func titleInChildTask(_ f: AccessPattern.Fixture) async -> String {
    await Task { self.bookTitle(f) }.value
  }

  func titleInDetachedTask(_ f: AccessPattern.Fixture) async -> String {
    await Task.detached { f.book.title }.value
  }
}
