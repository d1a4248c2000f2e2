import Foundation
import Testing
import WorkshopSupport

/// The slides before "Your turn" name every API the solution uses and the starter does not (the
/// core's, the standard library's, Dispatch's), with a line on what it does: an attendee should
/// not have to find the names in the solution. The code that uses them stays after "Your turn"
/// (`AnswerAfterTheExerciseTests`).
@Suite("The slides name the API before \"Your turn\"")
struct YouWillNeedTests {
  /// Per step, the API its solution adds, as the deck writes it before "Your turn" (most on its
  /// slide "You will need"). Each entry is looked for verbatim in the deck; its name up to the
  /// first `(` must occur in the step's solution, so that the list follows the code.
  static let api: [Int: [String]] = [
    1: ["perform", "existingObject(with:as:)", "ManagedObjectID", "objectID"],
    2: [
      "Mutex", "withLock", "existingObject(with:as:)", "newBackgroundContext()",
      "mergePolicy", "NotConfiguredError",
    ],
    3: ["CoreDataActor", "existingObject(with:as:)", "EntitySnapshot", "FetchRequest"],
    4: [
      "unownedExecutor", "UnownedSerialExecutor", "asUnownedSerialExecutor()", "UnownedJob(_:)",
      "runSynchronously(on:)", "checkIsolated()", "isIsolatingCurrentContext()",
      "isOnContextQueue", "precondition",
    ],
    5: [
      "Mutex", "withLock", "CheckedContinuation", "withCheckedThrowingContinuation",
      "withTaskCancellationHandler", "CancellationError", "@TaskLocal", "withValue",
      "ObjectIdentifier", "Task.isCancelled", "resume(throwing:)", "Task.sleep(for:)",
      "newBackgroundContext()", "isReadOnly", "mergePolicy",
    ],
    6: [
      "newBackgroundContext()", "ModelActorExecutor(context:)", "unownedExecutor",
      "asUnownedSerialExecutor()", "existingObject(with:as:)", "isInPerformScope",
      "checkIsolated()", "isIsolatingCurrentContext()",
    ],
  ]

  /// The name as code spells it: up to the first `(`, without `@` and a receiver such as `moc.`.
  static func codeName(_ entry: String) -> String {
    let name = entry.split(separator: "(").first.map(String.init) ?? entry
    return String(name.drop { $0 == "@" })
  }

  @Test("Every API the solution adds is named before \"Your turn\"", arguments: StepFolder.all)
  func apiIsNamedBeforeYourTurn(_ step: StepFolder) throws {
    let names = try #require(Self.api[step.number], "no API list for \(step.module) in \(#fileID)")
    let deck = try ReadBeforeYourTurnTests.Deck(step)
    let before = deck.lines[..<deck.turn].joined(separator: "\n")
    let missing = names.filter { !before.contains($0) }
    #expect(
      missing.isEmpty,
      """
      \(step.module): \(deck.path) does not name \(missing.map { "`\($0)`" }.joined(separator: ", ")) \
      before "Your turn" (line \(deck.turn + 1)). Rule: the attendee learns the names before the \
      exercise and the code after it. Fix: list each, with a line on what it does and no code \
      that uses it, on the slide "You will need".
      """)
    let solution = DocsTests.swiftFiles(under: step.solution).map(DocsTests.read)
      .joined(separator: "\n")
    let unused = names.filter { !solution.contains(Self.codeName($0)) }
    #expect(
      unused.isEmpty,
      """
      \(step.module): \(unused) are listed in YouWillNeedTests.api but not used in \
      \(step.solution): drop them from the list (and the slide), or fix their spelling.
      """)
  }
}
