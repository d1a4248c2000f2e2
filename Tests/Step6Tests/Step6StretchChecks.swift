import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// The stretch task: values cross between stores, objects and IDs do not.
extension Step6Tests {
  static let copyCheck = step.check(
    "copyNote(_:from:) brings a note over from a model actor on another store", .stretch)

  @Test(
    "copyNote(_:from:) brings a note over from a model actor on another store",
    arguments: Subject.all)
  func copyFromAnotherStore(_ subject: Subject) async {
    await exam(subject.side, Self.copyCheck) {
      try await Self.inChildProcess(.copy, subject)
    }
  }

  /// A force unwrap of the source's answer ends the process for the deleted note: this runs in
  /// a child process.
  static func copyScenario(_ subject: Subject) async throws {
    let away = PersistentContainer(name: "step6-copy-away")
    let home = PersistentContainer(name: "step6-copy-home")
    let source = subject.make(away)
    let target = subject.make(home)
    try Self.requireRunnableExecutors(source, target)
    let (copied, gone, texts) = try await withTimeout(.seconds(20), "copying a note") {
      let id = try await source.addNote("travels")
      let copy = try await target.copyNote(id, fromHandler: source)
      let text = await copy.asyncMap { await target.text(of: $0) } ?? nil
      let deleted = try await source.addNote("deleted")
      try await source.delete(deleted)
      let gone = try await target.copyNote(deleted, fromHandler: source)
      return (copy, gone, (text, try await target.count(), try await source.count()))
    }
    // A copy whose save fails is the caller's error: the target's context refuses to save.
    target.context.isReadOnly = true
    let refused: String
    do {
      let id = try await withTimeout(.seconds(20), "copying into a read-only store") {
        try await target.copyNote(try await source.addNote("refused"), fromHandler: source)
      }
      refused = "returned \(id == nil ? "nil" : "an ID")"
    } catch let error as PersistenceError {
      refused = if case .readOnlyContext = error { "" } else { "threw \(error)" }
    }
    var wrong: [String] = []
    if copied == nil { wrong.append("copyNote answered nil for a note the source has") }
    if texts.0 != "travels" {
      wrong.append("the copy reads \(String(describing: texts.0)) in this store")
    }
    if texts.1 != 1 { wrong.append("this store holds \(texts.1) note(s), not 1") }
    if texts.2 != 1 { wrong.append("the source's store holds \(texts.2) note(s), not 1") }
    if gone != nil { wrong.append("copying a deleted note answered an ID") }
    if !refused.isEmpty {
      wrong.append(
        "with this store's context read-only, so that its save throws, copyNote \(refused)")
    }
    let lesson = Self.step.lesson(
      rule: "A note stays in the context, and so the actor, that holds it; its ID finds "
        + "nothing in another store. What crosses between stores is a value, and the "
        + "receiving actor makes an object of its own from it.",
      hint: "Ask the source actor for what the copy needs (it answers with a value), then "
        + "insert and save on this actor.", read: "stretch-task")
    expect(wrong.isEmpty, observed: wrong.joined(separator: "; "), lesson: lesson)
    expectNoViolations(
      away.violations + home.violations, while: "one model actor copied another's note",
      lesson: lesson)
  }
}

extension Optional {
  /// `map` with an async transform.
  fileprivate func asyncMap<Mapped>(_ transform: (Wrapped) async throws -> Mapped)
    async rethrows -> Mapped?
  {
    guard let self else { return nil }
    return try await transform(self)
  }
}
