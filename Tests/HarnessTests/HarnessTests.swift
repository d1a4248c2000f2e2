import Foundation
import ManagedObjectCore
import Testing
import WorkshopSupport

/// The exam harness's own checks: a harness that cannot fail teaches nothing.
@Suite("Exam harness")
struct HarnessTests {
  final class Note: ManagedObject {
    @Attribute var text: String = ""
  }

  final class KeepsAnObject: @unchecked Sendable {
    let container: PersistentContainer
    var note: Note?
    let count = 1

    init(container: PersistentContainer, note: Note?) {
      self.container = container
      self.note = note
    }
  }

  @Test("Violations are listed one per line, identical ones folded with a count")
  func violationsAreFolded() async {
    let container = PersistentContainer(name: "harness-fold")
    let context = container.newBackgroundContext()
    context.name = "folded"
    let note = await context.perform { Note(context: context) }
    for _ in 0..<3 { note.text = "outside" }
    _ = note.text
    let listing = describe(container.violations)
    let lines = listing.split(separator: "\n")
    #expect(lines.count == 2, "\(listing)")
    #expect(lines.first?.hasPrefix("  ×3 Confinement violation: write of Note.text") == true)
    #expect(lines.last?.hasPrefix("  - Confinement violation: read of Note.text") == true)
    #expect(!listing.contains("Rule:"), "the lesson states the rule once, not every line")
  }

  @Test("Stored state that holds a managed object is found, through optionals")
  func contextBoundStateIsFound() async {
    let container = PersistentContainer(name: "harness-state")
    let context = container.newBackgroundContext()
    let note = await context.perform { Note(context: context) }
    #expect(
      storedContextBoundState(of: KeepsAnObject(container: container, note: note))
        == ["note: Note"])
    #expect(storedContextBoundState(of: KeepsAnObject(container: container, note: nil)).isEmpty)
  }

  @Test("A step's sources are found on both sides, and escapes are located by line")
  func sourcesAreFound() throws {
    let yours = try sourceFiles(of: .yours, folder: "Step1-UnsafeController")
    let solution = try sourceFiles(of: .solution, folder: "Step1-UnsafeController")
    #expect(yours.map(\.path).contains("Steps/Step1-UnsafeController/CoreDataController.swift"))
    #expect(solution.count == yours.count)
    let escapes = yours.flatMap { $0.lines(containing: "@unchecked") }
    #expect(escapes.count == 1, "\(escapes)")
    #expect(escapes.first?.contains("CoreDataController.swift:") == true)
  }

  #if compiler(>=6.3)
    @Test("The watchdog ends a hung check with a message naming it and the likely cause")
    func watchdogEndsAHang() async {
      let result = await withExitTestOffThePool {
        await #expect(
          processExitsWith: .failure, observing: [\.standardErrorContent]
        ) {
          _ = Watchdog.shared.arm(
            "StepX — 'a check that hangs' (yours)", likelyCause: "a deliberate hang",
            after: .milliseconds(200))
          let never = DispatchSemaphore(value: 0)
          _ = never.wait(timeout: .now() + 30)  // blocked, as a deadlocked check would be
        }
      }
      let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
      #expect(output.contains("WATCHDOG: StepX — 'a check that hangs' (yours)"), "\(output)")
      #expect(output.contains("Likely cause: a deliberate hang"), "\(output)")
    }
  #endif
}
