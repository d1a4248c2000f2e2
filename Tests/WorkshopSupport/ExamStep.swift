import Testing

/// A step of the workshop as its checks see it, declared once by the step's suite:
///
///     static let step = ExamStep(
///       "Step5", deck: "slides/05-read-write-scheduler.md",
///       likelyCauseOfHang: "a caller that waits for a slot nobody releases …")
///
///     static let fairnessCheck = step.check(
///       "a read that arrives after a waiting write waits for the write", .failsOnStarter)
///
///     @Test("a read that arrives after a waiting write waits for the write", arguments: Subject.all)
///     func fairness(_ subject: Subject) async {
///       await exam(subject.side, Self.fairnessCheck) { … }
///     }
///
/// A check has one name: the `@Test` that runs it carries the same one, which `exam` enforces,
/// so the test list, the scoreboard, the hints, the facilitator guide and the wrong-answer
/// catalogue (`Check: <name>`) all say the same words.
public struct ExamStep: Sendable {
  /// The step as attendees filter for it, e.g. `Step5`.
  public let name: String
  /// The step's deck, `slides/<deck>.md`; every lesson of the step points into it.
  public let deck: String
  /// What most likely went wrong when a check of this step hangs; the watchdog prints it.
  public let likelyCauseOfHang: String
  /// What a bounded wait that ran out teaches, for the checks that do not say otherwise.
  public let whenStuck: Lesson?
  /// How long a check may run before the watchdog ends the process.
  public let watchdogTimeout: Duration

  public init(
    _ name: String, deck: String, likelyCauseOfHang: String, whenStuck: Lesson? = nil,
    watchdogTimeout: Duration = .seconds(120)
  ) {
    self.name = name
    self.deck = deck
    self.likelyCauseOfHang = likelyCauseOfHang
    self.whenStuck = whenStuck
    self.watchdogTimeout = watchdogTimeout
  }

  /// A check of this step, named as its `@Test` is.
  public func check(
    _ name: String, _ starter: StarterOutcome, likelyCauseOfHang: String? = nil,
    whenStuck: Lesson? = nil
  ) -> ExamCheck {
    ExamCheck(
      step: self.name, name: name, starter: starter,
      likelyCauseOfHang: likelyCauseOfHang ?? self.likelyCauseOfHang,
      watchdogTimeout: watchdogTimeout, whenStuck: whenStuck ?? self.whenStuck)
  }

  /// A lesson that points to `#anchor` in this step's deck. DocsTests checks that every anchor a
  /// step's tests name (`read: "…"`) is a heading of its deck.
  public func lesson(rule: String, hint: String, read anchor: String) -> Lesson {
    Lesson(rule: rule, hint: hint, slide: "\(deck)#\(anchor)", hints: Int(name.dropFirst(4)))
  }
}
