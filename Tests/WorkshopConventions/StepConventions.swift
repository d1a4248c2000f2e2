import Foundation

/// What every step has, in one place. The checks that hold the steps to it read these values, and
/// their failures say the rule and the fix; `swift run workshop new-step` writes a step that keeps
/// them, and `Tests/ADDING-A-STEP.md` points here. Foundation only: the runner reads it too.
public enum StepConventions {
  /// The fewest checks a step has: a lesson is tested from several sides (the rule, a guard
  /// against a plausible wrong answer, the stretch task), not by one assertion.
  public static let minimumChecks = 6

  /// The fewest hint levels a step has, one file each in `Steps/StepN-…/Hints/`: the rule, where,
  /// the shape, the key lines (`1-….md` to `4-….md`), then `when-a-check-still-fails.md`.
  public static let minimumHintLevels = 4

  /// The fewest entries a step's wrong-answer catalogue has (`Tests/WrongAnswers/StepN/*.patch`):
  /// without one, `.ci/wrong-answers` has nothing to measure the step's checks with.
  public static let minimumWrongAnswers = 1

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

  /// The files a step keeps as an exact copy of an earlier step's, each with the reason it cannot
  /// import that step's solution instead (`buildsOn` in `Package.swift`). Any other copy fails
  /// `StepConventionTests`: a fix to the earlier step would have two homes.
  public static let copiesOfEarlierSteps: [(file: String, reason: String)] = [
    (
      "Steps/Step2-ObjectIDRefetch/CoreDataEntity.swift",
      "the entity is the object Step 2 keeps or refetches: four lines the attendee reads in the "
        + "folder they edit, and each side keeps an entity class of its own"
    ),
    (
      "Solutions/Step2-ObjectIDRefetch/CoreDataEntity.swift",
      "the solution's side of the same entity (above)"
    ),
    (
      "Steps/Step4-CustomExecutor/ContextContainer.swift",
      "`ContextContainer.shared` is one container for the process: imported from Step 3, Step 4's "
        + "two sides and Step 3's checks would share one store and one context"
    ),
    (
      "Solutions/Step4-CustomExecutor/ContextContainer.swift",
      "the solution's side of the same container (above)"
    ),
    (
      "Steps/Step4-CustomExecutor/CoreDataEntity.swift",
      "the same text names Step 4's own `@CoreDataActor`, the actor whose executor Step 4 changes; "
        + "Step 3's entity is isolated to Step 3's actor"
    ),
    (
      "Solutions/Step4-CustomExecutor/CoreDataEntity.swift",
      "the solution's side of the same entity (above)"
    ),
  ]

  /// The documents that list every step, and what each holds for one: `StepConventionTests`
  /// checks that every step is there, and `new-step` adds the new one.
  public static let documentsListingSteps: [(path: String, entry: String)] = [
    ("README.md", "a row of the table under \"## The steps\" that names the step's deck"),
    (
      "slides/facilitator-guide.md",
      "a section \"## Step N — …\" with its line \"Deck `…`, M minutes (…)\""
    ),
    ("slides/links.md", "a section \"## Step N — …\""),
    (
      "slides/00-introduction.md",
      "a line \"N. **Title**: the problem\" on the slide \"## The plan of the day\""
    ),
  ]

  /// Where a document has an entry for a step (its deck, `slides/0N-….md`), as the check reads it.
  public static func lists(step number: Int, deck: String, in text: String, of path: String) -> Bool
  {
    switch path {
    case "README.md":
      text.split(separator: "\n").contains {
        $0.hasPrefix("| \(number) ") && $0.contains("`\(deck)`")
      }
    case "slides/00-introduction.md":
      text.components(separatedBy: "\n## ").first { $0.hasPrefix("The plan of the day\n") }?
        .split(separator: "\n").contains { $0.hasPrefix("\(number). **") } ?? false
    case "slides/facilitator-guide.md":
      text.contains("\n## Step \(number) — ") && text.contains("Deck `\(deck)`, ")
    default:
      text.contains("\n## Step \(number) — ")
    }
  }

  /// The marker `new-step` leaves in every file it writes from `Tests/NewStepTemplate`: a step
  /// whose files still hold it has no lesson yet, and `StepConventionTests` says so.
  public static let noLessonYet = "NO LESSON YET"

  /// Every count of steps written in words in `text` ("six steps", "Six solutions"): where it is,
  /// and the number it says. It compiles its pattern on each call: search a whole document at
  /// once, not line by line (thousands of compilations took 2 s of a core in the test run).
  public static func stepCounts(in text: String) -> [(range: Range<String.Index>, number: Int)] {
    let words = numberWords.joined(separator: "|")
    // Any white space between the words: prose wraps a count across lines ("six" at the end of
    // one, "starters" at the start of the next).
    let phrase = try! Regex("(?i)\\b(\(words))\\s+(steps|starters|solutions|step\\s+decks)\\b")
    return text.matches(of: phrase).compactMap { match in
      let word = text[match.range].prefix { !$0.isWhitespace }.lowercased()
      return numberWords.firstIndex(of: word).map { (match.range, $0 + 1) }
    }
  }

  /// The documents whose prose may count the steps, as paths from `root`: the README, the
  /// maintainers' notes, the decks and handouts, and every step's hints.
  public static func proseDocuments(under root: URL) -> [String] {
    func names(_ folder: String, ending suffix: String) -> [String] {
      let url = root.appendingPathComponent(folder)
      return ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? [])
        .filter { $0.hasSuffix(suffix) }.sorted()
    }
    var paths = [
      "README.md", "Steps/Core/CONCURRENCY.md", "Tests/ADDING-A-STEP.md", "Tests/FIDELITY.md",
      "Tests/MAINTAINING.md", "Tests/RUNNER.md", "Tests/WrongAnswers/README.md",
    ]
    paths += names("slides", ending: ".md").map { "slides/\($0)" }
    for folder in names("Steps", ending: "") {
      let hints = "Steps/\(folder)/HINTS.md"
      if FileManager.default.fileExists(atPath: root.appendingPathComponent(hints).path) {
        paths.append(hints)
      }
      paths += names("Steps/\(folder)/Hints", ending: ".md").map { "Steps/\(folder)/Hints/\($0)" }
    }
    return paths
  }

  /// Whether `phrase`, found in `file`, counts something other than the workshop's steps.
  public static func countsOtherSteps(_ phrase: String, in file: String) -> Bool {
    let words = phrase.lowercased().split { $0.isWhitespace }.joined(separator: " ")
    return countsOfOtherSteps.contains { $0.file == file && $0.phrase == words }
  }

  /// The text of a failure: what was found, the rule, and the fix.
  public static func failure(_ found: String, rule: String, fix: String) -> String {
    "\(found)\nRule: \(rule)\nFix: \(fix) The conventions: Tests/WorkshopConventions/StepConventions.swift."
  }
}
