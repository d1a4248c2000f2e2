/// What every step has, in one place. The checks that hold the steps to it read these values, and
/// their failures say the rule and the fix; `Tests/ADDING-A-STEP.md` points here.
public enum StepConventions {
  /// The fewest checks a step has: a lesson is tested from several sides (the rule, a guard
  /// against a plausible wrong answer, the stretch task), not by one assertion.
  public static let minimumChecks = 6

  /// The fewest hint levels a step has, one file each in `Steps/StepN-…/Hints/`: the rule, where,
  /// the shape, the key lines (`1-….md` to `4-….md`), then `when-a-check-still-fails.md`.
  public static let minimumHintLevels = 4

  /// Whether every step has a stretch task: a check marked `.stretch` and a slide
  /// `## Stretch task` in its deck, for whoever finishes early.
  public static let stretchTaskRequired = true

  /// Number words a document may use to count the steps ("six steps"): a count written in prose
  /// must be the number of step folders.
  public static let numberWords = [
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
    "twelve",
  ]

  /// A phrase that counts something other than the workshop's steps, with the file that says it
  /// and why it is not a count of steps.
  public static let countsOfOtherSteps: [(file: String, phrase: String, reason: String)] = [
    (
      "Steps/Step4-CustomExecutor/Hints/3-the-shape.md", "three steps",
      "the steps of one enqueue, not the workshop's"
    )
  ]

  /// The text of a failure: what was found, the rule, and the fix.
  public static func failure(_ found: String, rule: String, fix: String) -> String {
    "\(found)\nRule: \(rule)\nFix: \(fix) The conventions: Tests/WorkshopSupport/StepConventions.swift."
  }
}
