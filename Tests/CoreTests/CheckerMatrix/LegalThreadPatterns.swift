import Dispatch
import ManagedObjectCore
import WorkshopSupport

// Legal patterns: performAndWait from Dispatch queues and nested in another context's perform,
// the viewContext on the main actor, background tasks, and the members safe from any thread.

extension AccessPattern {
  static let legalThreadPatterns: [AccessPattern] = [
    .legal("performAndWait from a plain DispatchQueue") { f in
      let title = try await onPlainQueue {
        f.a.performAndWait {
          f.book.pages = 7
          return f.book.title
        }
      }
      try check(title == "Dune", "read '\(title)'")
    },
    .legal("performAndWait inside the same context's perform runs inline") { f in
      let title = await f.a.perform(schedule: .enqueued) {
        f.a.performAndWait { f.book.title }
      }
      try check(title == "Dune", "read '\(title)'")
    },
    .legal("nested performAndWait of B inside A's perform, touching A") { f in
      let (pages, count) = try await f.a.perform {
        let count = try f.b.performAndWait {
          f.book.pages += 1
          return try f.a.count(for: FetchRequest<Book>())
        }
        return (f.book.pages, count)
      }
      try check(pages == 413 && count == 1, "pages \(pages), count \(count)")
    },
    .legal("nested performAndWait of B inside A's perform, touching B") { f in
      let id = f.book.objectID
      let pages = try await f.a.perform {
        try f.b.performAndWait {
          let mine = try f.b.existingObject(with: id, as: Book.self)
          mine.pages = 512
          try f.b.save()
          return try f.b.existingObject(with: id, as: Book.self).pages
        }
      }
      try check(pages == 512, "B saved \(pages) pages instead of 512")
    },
    .legal("performAndWait A, then B, then A again is reentrant") { f in
      let title = try await onPlainQueue {
        f.a.performAndWait { f.b.performAndWait { f.a.performAndWait { f.book.title } } }
      }
      try check(title == "Dune", "read '\(title)'")
    },
    .legalFromScratch("viewContext used directly on the main actor") { name in
      try await mainActorUsesViewContext(name)
    },
    .legalFromScratch(
      "viewContext object touched in a performAndWait of B started on the main actor"
    ) { name in
      try await mainActorNestsBackgroundPerformAndWait(name, throughViewContext: false)
    },
    .legalFromScratch(
      "viewContext object touched in a performAndWait of B nested in viewContext.performAndWait"
    ) { name in
      try await mainActorNestsBackgroundPerformAndWait(name, throughViewContext: true)
    },
    .legalFromScratch("viewContext used through perform from a detached task") { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let count = try await Task.detached {
        let view = container.viewContext
        return try await view.perform { try saveDuneAndCount(in: view) }
      }.value
      try check(count == 1, "counted \(count) books in the viewContext")
      return container
    },
    .legalFromScratch("viewContext performAndWait from a plain DispatchQueue") { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let count = try await onPlainQueue {
        let view = container.viewContext
        return try view.performAndWait { try saveDuneAndCount(in: view) }
      }
      try check(count == 1, "counted \(count) books in the viewContext")
      return container
    },
    .legalFromScratch("performBackgroundTask") { name in
      let container = PersistentContainer(name: name, concurrencyChecking: .record)
      let count = try await container.performBackgroundTask { context in
        try saveDuneAndCount(in: context)
      }
      try check(count == 1, "counted \(count) books")
      return container
    },
    .legal("thread-safe members outside perform") { f in
      var problems: [String] = []
      let id = f.book.objectID
      if id.isTemporaryID { problems.append("a saved object has a temporary ID") }
      if f.book.managedObjectContext !== f.a { problems.append("managedObjectContext is not A") }
      if f.a.name != "A" { problems.append("name is \(String(describing: f.a.name))") }
      f.a.mergePolicy = .mergeByPropertyObjectTrump
      if f.a.mergePolicy != .mergeByPropertyObjectTrump { problems.append("mergePolicy") }
      f.a.automaticallyMergesChangesFromParent = false
      if f.a.concurrencyType != .privateQueue { problems.append("concurrencyType") }
      let child = f.a.newChildContext()
      if child.parent !== f.a { problems.append("parent") }
      let token = f.a.addObjectsDidChangeObserver { _ in }
      f.a.removeObjectsDidChangeObserver(token)
      f.container.removeSaveObserver(f.container.addSaveObserver { _ in })
      if !f.book.description.contains(id.description) { problems.append("description") }
      if Set([f.book, f.book]).count != 1 || f.book != f.book { problems.append("hashing") }
      if f.container.viewContext.name != "viewContext" { problems.append("viewContext name") }
      if f.container.concurrencyCheckingPolicy != .record { problems.append("policy") }
      _ = f.container.newBackgroundContext()
      _ = f.container.violations
      enqueue(f.a) { f.book.pages = 1 }
      let pages = await f.a.perform(schedule: .enqueued) { f.book.pages }
      if pages != 1 { problems.append("the fire-and-forget perform did not run first") }
      try check(problems.isEmpty, problems.joined(separator: "; "))
    },
    .legal("thread-safe members of an invalidated object") { f in
      await f.a.perform { f.a.reset() }
      let id = f.book.objectID
      try check(f.book.managedObjectContext == nil, "a reset object still has a context")
      try check(!id.isTemporaryID, "the ID became temporary")
      try check(f.book.description.contains(id.description), "description: \(f.book)")
    },
  ]
}
