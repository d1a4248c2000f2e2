import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// Not an exam: the 2024 talk's argument (2024 talk, slides 7, 12, 15), run
/// (slides/05-read-write-scheduler.md).
@Suite("Step 5 — the lost update, and why one actor is not the answer")
struct TheLostUpdate {
  /// Two tasks each fetch the score in their own context, add 10, and save; a barrier makes
  /// both read before either writes, the interleaving that timing produces now and then.
  static func twoIncrements(policy: MergePolicy) async throws -> (Int, [String]) {
    let container = PersistentContainer(name: "lost-update")
    try await container.performBackgroundTask { context in
      Score(context: context).name = "ann"
      try context.save()
    }
    let barrier = Barrier(parties: 2)
    let errors = Log()
    try await concurrently(2, "read-modify-writes") { _ in
      let context = container.newBackgroundContext()
      context.mergePolicy = policy
      await context.perform {
        do {
          let score = try score(named: "ann", in: context)
          let read = score.value
          barrier.arriveAndWait()
          score.value = read + 10
          try context.save()
        } catch {
          errors.append("\(error)")
        }
      }
    }
    let total = try await container.performBackgroundTask { try score(named: "ann", in: $0).value }
    return (total, errors.all)
  }

  @Test("With .mergeByPropertyObjectTrump, one of two concurrent +10s is silently lost")
  func lostUnderObjectTrump() async throws {
    let (total, errors) = try await Self.twoIncrements(policy: .mergeByPropertyObjectTrump)
    #expect(total == 10)
    #expect(errors.isEmpty)
  }

  @Test("With Core Data's default .error, the second save throws a merge conflict instead")
  func conflictUnderError() async throws {
    let (total, errors) = try await Self.twoIncrements(policy: .error)
    #expect(total == 10)
    #expect(errors.count == 1)
    #expect(errors.first?.contains("Merge conflict") == true, "\(errors)")
  }

  /// Everything through one serial actor: correct, and reads wait for each other.
  actor OneActorForEverything {
    func read(meeting barrier: Barrier) -> Bool {
      barrier.arriveAndWait(timeout: .milliseconds(200))
    }
  }

  @Test("With one actor for everything, two reads never run at the same time")
  func oneActorSerializesReads() async {
    let actor = OneActorForEverything()
    let barrier = Barrier(parties: 2)
    let read = { @Sendable in await actor.read(meeting: barrier) }
    let (met, metToo) = await sideBySide(read, read)
    #expect(!(met && metToo), "the two reads met: the actor ran them at once")
  }
}
