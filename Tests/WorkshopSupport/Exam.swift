import Foundation
import ManagedObjectCore
import Synchronization
import Testing
import WorkshopEnvironment

// The exam pattern
// ================
//
// Every check of a step is written once and runs against two subjects: the attendee's module
// (`StepN`, "yours") and the reference (`StepNSolution`, "solution"). Both results show side by
// side in `swift test --filter StepN`, so a failure is visibly fair.
//
//     @Test("configure() from many tasks records no violation", arguments: Subject.all)
//     func configureFromManyTasks(_ subject: Subject) async throws {
//       try await exam(subject.side, Self.configureCheck) {
//         let container = PersistentContainer(name: "…")
//         … exercise subject.make(container) …
//         expectNoViolations(container.violations, while: "…", lesson: Self.lesson)
//       }
//     }
//
// 1. Declare the check as an `ExamCheck`: the step, a name, whether the untouched starter fails
//    it (`.failsOnStarter`) or passes from the start (`.passesOnStarter`), and what most likely
//    went wrong if it hangs (the watchdog prints it).
// 2. Run its body inside `exam(side, check) { … }`. With `WORKSHOP_VERIFY=1`, the starter's side
//    of a `.failsOnStarter` check runs inside a strict `withKnownIssue`: the starter must fail
//    it, and a starter that was solved by accident turns the run red with "Known issue was not
//    recorded". The solution always runs plainly. Without the variable both run plainly, which
//    is what attendees see. A `.knownGap` check fails on both sides by design (a step's
//    technique that a later step completes) and always runs as a strict known issue. A
//    `.stretch` check is the starter's failure in verify mode too; for an attendee it is
//    optional while the task is not started, and judged like any check once it is (below).
// 3. Report with the teaching helpers (`expectNoViolations`, `expect(_:observed:lesson:)`), never
//    with a bare `#expect` whose message says only "false": an attendee must read what was
//    observed, the rule, a hint, and which slide to open.
// 4. Check outside `perform`. A `#expect` inside a `perform` block runs on the context's queue,
//    outside the test's task: the run still fails, but the failure is attributed to no test and
//    `withKnownIssue` cannot see it. Return values from `perform` and check them afterwards.
// 5. Never wait unboundedly: use `withTimeout`, `Gate` and `Barrier`. Every check is guarded by
//    the watchdog, which ends a deadlocked run with a message naming the step and the likely
//    cause, because a blocked thread cannot be cancelled.
// 6. A stretch task's stub in the starter calls `StretchTask.notStarted()` (in the core), and
//    nothing else does: the attendee deletes the call to start. While a check runs, `exam`
//    listens to those calls. On your side an issue recorded after a stub said "not started" is
//    a known issue, and the scoreboard line ends `(stretch task, optional: not done yet)`; an
//    issue recorded before, or with no stub saying so, is a failure with its lesson, like any
//    check's. So call the stub before anything can fail. In verify mode the untouched starter's
//    stub must say so, before any issue, and a solution must never call it.

/// Which implementation a check runs against.
public enum ExamSide: String, Sendable, CaseIterable, Codable {
  /// The attendee's code in `Steps/`.
  case yours
  /// The reference in `Solutions/`.
  case solution

  /// The sides this run checks: both, unless `WORKSHOP_SIDE` names one. The thread-sanitizer run
  /// in CI sets `WORKSHOP_SIDE=solution`, because the starters race on purpose; an attendee may
  /// set `WORKSHOP_SIDE=yours` to see only their own results.
  public static var selected: [ExamSide] {
    let named = WorkshopEnvironment.value(WorkshopEnvironment.side) ?? ""
    return allCases.filter { named.isEmpty || $0.rawValue == named }
  }

  /// Whether this run checks this side.
  public var isSelected: Bool { Self.selected.contains(self) }
}

/// What the untouched starter of a step does with a check.
public enum StarterOutcome: Equatable, Sendable {
  /// The starter fails this check: it is the lesson of the step.
  case failsOnStarter
  /// The starter already passes this check; it guards against wrong solutions.
  case passesOnStarter
  /// Both sides fail this check by design: the step's technique leaves a gap that a later step
  /// closes. It runs as a strict known issue on both sides, always, so that the output shows
  /// the gap and a run in which it does not show fails.
  case knownGap(String)
  /// A stretch task for those who finish early: the starter fails it, like `.failsOnStarter`,
  /// and its stub says that the task is not started (`StretchTask.notStarted()`). For an
  /// attendee it is optional while the stub says so: a failure then shows as a known issue
  /// ("stretch task, optional: not done yet"), so that it never blocks the step. Once the
  /// attendee has deleted that call, the check judges the answer like any other: solved, it
  /// passes; wrong, it fails with its lesson.
  case stretch
}

/// The teaching part of a failure message.
public struct Lesson: Sendable {
  /// The rule the code broke, in one sentence.
  public let rule: String
  /// What to change, concretely.
  public let hint: String
  /// Where to read more: `slides/<deck>.md#<anchor>`.
  public let slide: String
  /// The step's number, when the lesson points to its graded hints (`swift run workshop hint N`).
  public let hints: Int?

  public init(rule: String, hint: String, slide: String, hints: Int? = nil) {
    self.rule = rule
    self.hint = hint
    self.slide = slide
    self.hints = hints
  }

  /// The lesson as it ends a failure message. The hint is a first nudge; the graded hints, a
  /// level at a time, say more.
  public var text: String {
    let more = hints.map { " More, a level at a time: swift run workshop hint \($0)" } ?? ""
    return "Rule: \(rule)\nHint: \(hint)\(more)\nRead: \(slide)"
  }
}

/// One check of a step, declared once and run against both sides.
public struct ExamCheck: Sendable {
  /// The step's name as attendees filter for it, e.g. `Step1`.
  public let step: String
  public let name: String
  public let starter: StarterOutcome
  /// Printed by the watchdog if the check hangs.
  public let likelyCauseOfHang: String
  /// How long the check may run before the watchdog ends the process.
  public let watchdogTimeout: Duration
  /// What a bounded wait that ran out teaches, when the check gives up on one (a ``TimeoutError``
  /// thrown out of its body): a wrong answer that makes a caller wait forever fails with this
  /// lesson, not with a bare "did not finish".
  public let whenStuck: Lesson?

  public init(
    step: String, name: String, starter: StarterOutcome, likelyCauseOfHang: String,
    watchdogTimeout: Duration = .seconds(120), whenStuck: Lesson? = nil
  ) {
    self.step = step
    self.name = name
    self.starter = starter
    self.likelyCauseOfHang = likelyCauseOfHang
    self.watchdogTimeout = watchdogTimeout
    self.whenStuck = whenStuck
  }
}

/// True when the run checks the untouched starters and the solutions (`WORKSHOP_VERIFY=1`).
public var isVerifyMode: Bool {
  WorkshopEnvironment.isOn(WorkshopEnvironment.verify)
}

/// True when the check running now has already recorded a failure: a scenario made of parts may
/// stop there, since the check's verdict is given, instead of waiting out the next part's bounds
/// behind a caller the first part left stuck.
public var currentCheckHasFailed: Bool { ExamScore.current?.failed ?? false }

/// Counts the failures an exam's helpers record, for its scoreboard line.
final class ExamScore: Sendable {
  @TaskLocal static var current: ExamScore?

  /// The check's name, which every issue it records starts with, so that a failure can be told
  /// apart from its neighbours in the output (and the wrong-answer gate can find it).
  let check: String
  /// A stretch check's stubs, on your side: once one has said "not started", a failure is
  /// counted and not recorded, so that an open task shows as its one scoreboard line.
  let stretchStubs: StretchTask.Observer?
  private let failures = Mutex(0)

  init(check: String, stretchStubs: StretchTask.Observer? = nil) {
    self.check = check
    self.stretchStubs = stretchStubs
  }

  func recordFailure() { failures.withLock { $0 += 1 } }
  var failed: Bool { failures.withLock { $0 > 0 } }
  /// True when the check is a stretch task that its stub said is not started: quiet.
  var isOpenStretchTask: Bool { !(stretchStubs?.calls.isEmpty ?? true) }
}

/// Runs `body`, one side of `check`, under the watchdog; in verify mode, the starter's side of a
/// `.failsOnStarter` or `.stretch` check must record an issue.
///
/// Afterwards it prints one scoreboard line, so that both sides' results stand next to each
/// other in the output: `[Step1] ✔ solution · class — configure() …`.
public func exam(
  _ side: ExamSide, _ check: ExamCheck, subject: String? = nil,
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> Void
) async {
  await runExam(
    side, check, subject: subject, verify: isVerifyMode,
    only: WorkshopEnvironment.value(WorkshopEnvironment.check),
    isolation: isolation, sourceLocation: sourceLocation,
    report: { line in
      ExamOutput.write(line + "\n")
      ExamSummary.shared.record(
        step: check.step, check: check.name, label: subject ?? side.rawValue, line: line,
        passed: line.hasPrefix("[\(check.step)] ✔"))
    }, body)
}

/// `exam` with its environment spelled out, so that HarnessTests can check verify mode, the
/// one-check filter and the scoreboard line without changing the process's environment.
package func runExam(
  _ side: ExamSide, _ check: ExamCheck, subject: String?, verify: Bool, only: String?,
  isolation: isolated (any Actor)?, sourceLocation: SourceLocation,
  report: (String) -> Void, _ body: () async throws -> Void
) async {
  // The wrong-answer gate runs one check at a time: `WORKSHOP_CHECK` names it.
  if let only, only != check.name { return }
  // One name per check: the test list, the scoreboard and the docs must say the same words.
  if let test = Test.current, test.displayName != check.name {
    Issue.record(
      Comment(
        rawValue: "Harness: the test '\(test.displayName ?? test.name)' runs the check "
          + "'\(check.name)'. Name the @Test exactly as its check, so that the test list, the "
          + "scoreboard and the docs say the same words."), sourceLocation: sourceLocation)
  }
  let label = subject ?? side.rawValue
  let watch = Watchdog.shared.arm(
    "\(check.step) — '\(check.name)' (\(label))", likelyCause: check.likelyCauseOfHang,
    after: check.watchdogTimeout)
  defer { Watchdog.shared.disarm(watch) }
  // A stretch task's stub says "not started" by calling `StretchTask.notStarted()`; the observer
  // sees the calls made while this check runs, and only those.
  let stubs = StretchTask.Observer()
  let stretch = check.starter == .stretch
  let score = ExamScore(check: check.name, stretchStubs: stretch && side == .yours ? stubs : nil)
  let verdict = StretchVerdict(stubs)
  let knownIssue: String? =
    switch check.starter {
    case .failsOnStarter where verify && side == .yours, .stretch where verify && side == .yours:
      "the untouched starter of \(check.step) must fail '\(check.name)'"
    case .knownGap(let reason): reason
    case .stretch where side == .yours: notStartedNote
    default: nil
    }
  // A stretch check on your side counts as a known issue only while its stub says it has not
  // been started: a failure recorded before that, or without it, is a failure like any other.
  let judged = stretch && side == .yours
  // An attendee's stretch task may fail while it is not started, or pass (done): both are fine.
  let intermittent = !verify && side == .yours && stretch
  await ExamScore.$current.withValue(score) {
    await StretchTask.$observer.withValue(stubs) {
      if let knownIssue {
        await withKnownIssue(
          Comment(rawValue: knownIssue), isIntermittent: intermittent, isolation: isolation,
          sourceLocation: sourceLocation
        ) {
          await runBody(
            check, score: score, isolation: isolation, sourceLocation: sourceLocation, body)
          // An open task's failures were counted, not recorded: verify mode still needs the
          // starter's failure as an issue, and gets one line.
          if verify, score.isOpenStretchTask, score.failed {
            Issue.record(
              Comment(rawValue: "\(check.name): stretch task open (\(stubs.calls[0]))"),
              sourceLocation: sourceLocation)
          }
        } matching: { _ in
          !judged || verdict.matches()
        }
      } else {
        await runBody(
          check, score: score, isolation: isolation, sourceLocation: sourceLocation, body)
      }
    }
  }
  // Your side of a stretch check: not started (optional) when a stub said so before any issue;
  // a failure like any other when an issue came first, or no stub said it.
  let notStarted = judged && !stubs.calls.isEmpty && !verdict.hasFailures
  checkTheStubs(
    check, side: side, verify: verify, stubs: stubs, verdict: verdict,
    sourceLocation: sourceLocation)
  report(
    scoreboardLine(
      check, label: label, failed: score.failed,
      expected: knownIssue != nil && !(judged && verdict.hasFailures),
      optional: !verify && notStarted))
}

/// Runs a check's body, and records what it throws as a failure of the check: a bounded wait
/// that ran out with the check's lesson for being stuck, any other error as it is.
private func runBody(
  _ check: ExamCheck, score: ExamScore, isolation: isolated (any Actor)?,
  sourceLocation: SourceLocation, _ body: () async throws -> Void
) async {
  do {
    try await body()
  } catch let timeout as TimeoutError where check.whenStuck != nil {
    recordExamIssue(
      "Observed: \(timeout) (\(check.likelyCauseOfHang))\n" + check.whenStuck!.text,
      sourceLocation: sourceLocation)
  } catch {
    recordExamIssue("\(error)", sourceLocation: sourceLocation)
  }
}

/// The scoreboard line for one side of a check: `[Step1] ✔ solution · class — configure() …`,
/// with a note when the failure was expected, or is an attendee's stretch task not done yet.
package func scoreboardLine(
  _ check: ExamCheck, label: String, failed: Bool, expected: Bool, optional: Bool = false
) -> String {
  let mark = failed ? "✘" : "✔"
  let note =
    switch check.starter {
    case .knownGap(let reason) where failed: " (known gap: \(reason))"
    case .stretch where failed && optional: " (\(stretchNote))"
    case .failsOnStarter where failed && expected, .stretch where failed && expected:
      " (expected: the untouched starter fails it)"
    default: ""
    }
  return "[\(check.step)] \(mark) \(label) — \(check.name)\(note)"
}
