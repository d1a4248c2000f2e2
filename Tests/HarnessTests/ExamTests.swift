import ManagedObjectCore
import Synchronization
import Testing
import WorkshopSupport

/// `exam` itself: verify mode, the one-check filter, the scoreboard line and the one-name rule.
/// Each test runs `runExam` with the environment spelled out, and names its check after itself,
/// as every step's test does.
@Suite("Exam harness — exam()")
struct ExamTests {
  static let step = ExamStep(
    "StepX", deck: "slides/00-introduction.md", likelyCauseOfHang: "a deliberate hang",
    whenStuck: Lesson(
      rule: "Stuck rule.", hint: "Stuck hint.", slide: "slides/00-introduction.md#setup"))

  /// A check of `StepX` named after the running test.
  static func check(_ starter: StarterOutcome) -> ExamCheck {
    step.check(Test.current?.displayName ?? "", starter)
  }

  static let lesson = Lesson(
    rule: "The rule.", hint: "The hint.", slide: "slides/00-introduction.md#the-problem")

  /// Runs one side of `check` and returns the scoreboard lines it reported.
  static func run(
    _ side: ExamSide, _ check: ExamCheck, verify: Bool, only: String? = nil,
    _ body: () async throws -> Void
  ) async -> [String] {
    var lines: [String] = []
    await runExam(
      side, check, subject: nil, verify: verify, only: only, isolation: nil,
      sourceLocation: #_sourceLocation, report: { lines.append($0) }, body)
    return lines
  }

  static func comment(of issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
  }

  @Test("verify mode: the starter failing its lesson is the expected known issue")
  func starterFailureIsExpected() async {
    let check = Self.check(.failsOnStarter)
    let lines = await Self.run(.yours, check, verify: true) {
      expect(false, observed: "the starter's mistake", lesson: Self.lesson)
    }
    #expect(lines == ["[StepX] ✘ yours — \(check.name) (expected: the untouched starter fails it)"])
  }

  @Test("verify mode: a starter that passes its lesson turns the run red")
  func starterSolvedByAccidentIsAnError() async {
    let check = Self.check(.failsOnStarter)
    var lines: [String] = []
    await withKnownIssue {
      lines = await Self.run(.yours, check, verify: true) {}
    } matching: { issue in
      if case .knownIssueNotRecorded = issue.kind { return true }
      return false
    }
    #expect(lines == ["[StepX] ✔ yours — \(check.name)"])
  }

  @Test("verify mode: the solution's side runs plainly, and its failure names the check")
  func solutionFailureIsAFailure() async {
    let check = Self.check(.failsOnStarter)
    var lines: [String] = []
    await withKnownIssue {
      lines = await Self.run(.solution, check, verify: true) {
        expect(false, observed: "a broken solution", lesson: Self.lesson)
      }
    } matching: { issue in
      Self.comment(of: issue)
        == "Check: \(check.name)\nObserved: a broken solution\n\(Self.lesson.text)"
    }
    #expect(lines == ["[StepX] ✘ solution — \(check.name)"])
  }

  @Test("attendee mode: the starter's failure is a plain failure with its lesson")
  func attendeeSeesPlainFailures() async {
    let check = Self.check(.failsOnStarter)
    var lines: [String] = []
    await withKnownIssue {
      lines = await Self.run(.yours, check, verify: false) {
        expect(false, observed: "the starter's mistake", lesson: Self.lesson)
      }
    } matching: { issue in
      Self.comment(of: issue).hasPrefix("Check: \(check.name)\nObserved: the starter's mistake")
    }
    #expect(lines == ["[StepX] ✘ yours — \(check.name)"])
  }

  @Test("a bounded wait that ran out fails with the step's lesson for being stuck")
  func timeoutTeaches() async {
    let check = Self.check(.passesOnStarter)
    await withKnownIssue {
      _ = await Self.run(.yours, check, verify: false) {
        throw TimeoutError(what: "a waiting write", timeout: .seconds(5))
      }
    } matching: { issue in
      Self.comment(of: issue)
        == "Check: \(check.name)\nObserved: a waiting write did not finish within 5.0 seconds "
        + "(a deliberate hang)\nRule: Stuck rule.\nHint: Stuck hint.\nRead: slides/00-introduction.md#setup"
    }
  }

  @Test("a known gap fails on both sides as a known issue, and says so on the scoreboard")
  func knownGapIsShown() async {
    let check = Self.check(.knownGap("a later step closes it"))
    for side in ExamSide.allCases {
      let lines = await Self.run(side, check, verify: false) {
        expect(false, observed: "the gap", lesson: Self.lesson)
      }
      #expect(
        lines == ["[StepX] ✘ \(side.rawValue) — \(check.name) (known gap: a later step closes it)"])
    }
  }

  @Test("WORKSHOP_CHECK runs the named check only")
  func oneCheckFilter() async {
    let check = Self.check(.passesOnStarter)
    var ran = false
    let skipped = await Self.run(.yours, check, verify: false, only: "another check") {
      ran = true
    }
    #expect(!ran && skipped.isEmpty)
    let run = await Self.run(.yours, check, verify: false, only: check.name) { ran = true }
    #expect(ran && run == ["[StepX] ✔ yours — \(check.name)"])
  }

  @Test("a test named otherwise than its check is a harness error")
  func oneNamePerCheck() async {
    let check = Self.step.check("a name the test does not carry", .passesOnStarter)
    await withKnownIssue {
      _ = await Self.run(.yours, check, verify: false) {}
    } matching: { issue in
      Self.comment(of: issue).hasPrefix(
        "Harness: the test 'a test named otherwise than its check is a harness error' runs the "
          + "check 'a name the test does not carry'.")
    }
  }

  @Test("a step's checks and lessons carry its name, its deck and its likely cause of a hang")
  func stepDeclaresOnce() {
    let check = Self.step.check("c", .passesOnStarter)
    #expect(check.step == "StepX" && check.likelyCauseOfHang == "a deliberate hang")
    #expect(check.whenStuck?.slide == "slides/00-introduction.md#setup")
    let own = Self.step.check("d", .passesOnStarter, likelyCauseOfHang: "its own cause")
    #expect(own.likelyCauseOfHang == "its own cause")
    let lesson = Self.step.lesson(rule: "r", hint: "h", read: "the-plan-of-the-day")
    #expect(lesson.slide == "slides/00-introduction.md#the-plan-of-the-day")
    #expect(lesson.text == "Rule: r\nHint: h\nRead: slides/00-introduction.md#the-plan-of-the-day")
    let numbered = ExamStep("Step5", deck: "slides/00-introduction.md", likelyCauseOfHang: "")
      .lesson(rule: "r", hint: "h", read: "the-plan-of-the-day")
    #expect(
      numbered.text
        == "Rule: r\nHint: h More, a level at a time: swift run workshop hint 5\n"
        + "Read: slides/00-introduction.md#the-plan-of-the-day")
  }

  @Test("a stretch task: required of the starter and the solution in verify mode, optional to you")
  func stretchTask() async {
    let check = Self.check(.stretch)
    let notStarted = {
      StretchTask.notStarted()
      expect(false, observed: "not done", lesson: Self.lesson)
    }
    // Verify mode: the untouched starter must fail it, as any lesson, its stub saying so.
    let starter = await Self.run(.yours, check, verify: true) { notStarted() }
    #expect(
      starter == ["[StepX] ✘ yours — \(check.name) (expected: the untouched starter fails it)"])
    // An attendee who has not started it: its scoreboard line, and no lesson recorded.
    let recorded = Mutex<[String]>([])
    let listen: @Sendable (String) -> Void = { message in recorded.withLock { $0.append(message) } }
    let open = await ExamIssues.$onRecord.withValue(listen) {
      await Self.run(.yours, check, verify: false) { notStarted() }
    }
    #expect(open == ["[StepX] ✘ yours — \(check.name) (stretch task, optional: not done yet)"])
    #expect(recorded.withLock { $0 } == [], "an open stretch task records no lesson")
    // An attendee who has: a pass, with no complaint that the known issue was not recorded.
    let done = await Self.run(.yours, check, verify: false) {}
    #expect(done == ["[StepX] ✔ yours — \(check.name)"])
    // The solution's side runs plainly, and must pass.
    await withKnownIssue {
      _ = await Self.run(.solution, check, verify: true) {
        expect(false, observed: "not done", lesson: Self.lesson)
      }
    }
  }

  @Test("a stretch task started and wrong fails with its lesson, like any check")
  func stretchStartedAndWrong() async {
    let check = Self.check(.stretch)
    var lines: [String] = []
    await withKnownIssue {
      // No stub says "not started": the attendee deleted the call and wrote an answer.
      lines = await Self.run(.yours, check, verify: false) {
        expect(false, observed: "a wrong answer", lesson: Self.lesson)
      }
    } matching: { issue in
      Self.comment(of: issue)
        == "Check: \(check.name)\nObserved: a wrong answer\n\(Self.lesson.text)"
    }
    #expect(lines == ["[StepX] ✘ yours — \(check.name)"])
  }

  @Test("a stretch task started and stuck fails with the lesson for being stuck")
  func stretchStartedAndStuck() async {
    let check = Self.check(.stretch)
    var lines: [String] = []
    await withKnownIssue {
      lines = await Self.run(.yours, check, verify: false) {
        throw TimeoutError(what: "a capped write", timeout: .seconds(5))
      }
    } matching: { issue in
      Self.comment(of: issue)
        == "Check: \(check.name)\nObserved: a capped write did not finish within 5.0 seconds "
        + "(a deliberate hang)\nRule: Stuck rule.\nHint: Stuck hint.\nRead: slides/00-introduction.md#setup"
    }
    #expect(lines == ["[StepX] ✘ yours — \(check.name)"])
  }

  @Test("a failure recorded before a stretch stub says not started is a failure")
  func stretchFailureBeforeTheStub() async {
    let check = Self.check(.stretch)
    var lines: [String] = []
    await withKnownIssue {
      lines = await Self.run(.yours, check, verify: false) {
        expect(false, observed: "the setup failed", lesson: Self.lesson)
        StretchTask.notStarted()
        expect(false, observed: "not done", lesson: Self.lesson)
      }
    } matching: { issue in
      Self.comment(of: issue).hasPrefix("Check: \(check.name)\nObserved: the setup failed")
    }
    #expect(lines == ["[StepX] ✘ yours — \(check.name)"])
  }

  @Test("a stretch stub heard from a child process, or a task that cannot have started yet")
  func stretchStubsRelayed() async {
    let check = Self.check(.stretch)
    let child =
      "fatal error: …\nStretchTask.notStarted(): offTheQueue() in Step4/CoreDataExecutor.swift\n"
    let relayed = await Self.run(.yours, check, verify: false) {
      StretchStubs.relay(child)
      expect(false, observed: "not done", lesson: Self.lesson)
    }
    #expect(relayed == ["[StepX] ✘ yours — \(check.name) (stretch task, optional: not done yet)"])
    let blocked = await Self.run(.yours, check, verify: false) {
      StretchStubs.cannotHaveStarted(because: "the code it builds on is not written yet")
      expect(false, observed: "not done", lesson: Self.lesson)
    }
    #expect(blocked == ["[StepX] ✘ yours — \(check.name) (stretch task, optional: not done yet)"])
    // Output without the marker relays nothing: the failure stands.
    await withKnownIssue {
      let plain = await Self.run(.yours, check, verify: false) {
        StretchStubs.relay("fatal error: …\n")
        expect(false, observed: "a wrong message", lesson: Self.lesson)
      }
      #expect(plain == ["[StepX] ✘ yours — \(check.name)"])
    } matching: { issue in
      Self.comment(of: issue).hasPrefix("Check: \(check.name)\nObserved: a wrong message")
    }
  }

  @Test("verify mode: an untouched starter's stretch stub that does not say so is a harness error")
  func stretchStubMustSaySo() async {
    let check = Self.check(.stretch)
    let comments = Mutex<[String]>([])
    var lines: [String] = []
    await withKnownIssue {
      lines = await Self.run(.yours, check, verify: true) {
        expect(false, observed: "not done", lesson: Self.lesson)
      }
    } matching: { issue in
      comments.withLock { $0.append(Self.comment(of: issue)) }
      return true
    }
    #expect(
      comments.withLock { $0 }.contains {
        $0.hasPrefix("Harness: in the stretch check '\(check.name)', no stub of the untouched")
      })
    // Its failure is not the expected one: it is the starter's failure to say "not started".
    #expect(lines == ["[StepX] ✘ yours — \(check.name)"])
  }

  @Test("a solution that says its stretch task is not started is a harness error")
  func solutionCallsNoStub() async {
    let check = Self.check(.stretch)
    var lines: [String] = []
    await withKnownIssue {
      lines = await Self.run(.solution, check, verify: true) { StretchTask.notStarted() }
    } matching: { issue in
      Self.comment(of: issue).hasPrefix(
        "Harness: the solution of StepX calls StretchTask.notStarted() (solutionCallsNoStub() in "
          + "HarnessTests/ExamTests.swift)")
    }
    #expect(lines == ["[StepX] ✔ solution — \(check.name)"])
  }
}

@Suite("Exam harness — the end-of-run summary")
struct ExamSummaryTests {
  @Test("Every result once, ordered by step, check, then yours before the solution")
  func ordered() {
    let summary = ExamSummary()
    #expect(summary.text.isEmpty, "no check ran: no summary")
    let lines = [
      ("Step10", "a", "yours", "[Step10] ✔ yours — a"),
      ("Step2", "b", "solution", "[Step2] ✔ solution — b"),
      ("Step2", "b", "yours · class", "[Step2] ✘ yours · class — b"),
      ("Step2", "a", "yours", "[Step2] ✘ yours — a (\(stretchNote))"),
    ]
    for (step, check, label, line) in lines {
      summary.record(
        step: step, check: check, label: label, line: line, passed: line.contains("✔"))
    }
    #expect(
      summary.text == """

        Step2 — every result, in order:
          ✘ yours — a (\(stretchNote))
          ✘ yours · class — b
          ✔ solution — b
          Your side: 0 of 2 pass (1 of the others: a stretch task, optional). The failures' \
        messages are above; `swift run workshop check 2` lists them in this order.

        Step10 — every result, in order:
          ✔ yours — a
          Your side: 1 of 1 pass.

        """)
  }
}
