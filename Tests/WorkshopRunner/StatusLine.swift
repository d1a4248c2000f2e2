/// The overview's last line, `Status: 1 ✔ 2 … 3 –`: how far an attendee is with each step, short
/// enough to read out or show to a helper walking the room.
package enum StatusLine {
  /// How far a step is.
  package enum Progress: Equatable, Sendable {
    /// Every check on the attendee's side passes (`StepReport.isDone`).
    case done
    /// Not done, and the step's folder differs from the last commit.
    case started
    /// Not done, and the step's folder is as committed.
    case notStarted

    package var mark: String {
      switch self {
      case .done: "✔"
      case .started: "…"
      case .notStarted: "–"
      }
    }
  }

  /// A step's progress from its report (nil when no check ran) and whether its folder differs
  /// from the last commit (nil when git cannot say).
  package static func progress(report: StepReport?, edited: Bool?) -> Progress {
    if report?.isDone == true { return .done }
    return edited == true ? .started : .notStarted
  }

  /// The line, steps in order.
  package static func text(_ steps: [(number: Int, progress: Progress)]) -> String {
    "Status: " + steps.map { "\($0.number) \($0.progress.mark)" }.joined(separator: " ")
      + "  (✔ done, … started, – not started)"
  }
}
