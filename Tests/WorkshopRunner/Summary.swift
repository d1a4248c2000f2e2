/// The one summary `check` prints at the end of a run: every check ✔ or ✘ in a stable order,
/// then each failure with what it observed, the rule, the hint and the slide to read, without
/// Swift Testing's decorations.
package struct Summary: Sendable {
  package let report: StepReport
  /// Whether the run checked the solution too.
  package let both: Bool

  package init(_ report: StepReport, both: Bool) {
    self.report = report
    self.both = both
  }

  package var text: String {
    let step = report.step
    var lines = ["Step \(step.number) — \(step.title) (\(step.starter))"]
    lines.append("Your side: \(report.count(of: "yours")).")
    if both { lines.append("The solution: \(report.count(of: "solution")).") }
    lines.append("")
    lines += report.results.map(\.text)
    if !report.ranToTheEnd { lines += (report.results.isEmpty ? [] : [""]) + stopped }
    let failures = report.failures
    if !failures.isEmpty {
      lines += ["", "Failures (\(failures.count)):"]
      for (index, failure) in failures.enumerated() {
        lines += [""] + Self.describe(failure, number: index + 1, step: step)
      }
    }
    lines += ["", next]
    return lines.joined(separator: "\n")
  }

  /// What stopped the run before its end, and what was running then.
  private var stopped: [String] {
    let run = report.run
    var lines = ["The run stopped before every check had finished:"]
    let reasons = run.stopReasons.isEmpty ? run.tail : run.stopReasons
    lines += reasons.map { "  \($0)" }
    if !run.unfinishedTests.isEmpty {
      lines.append("Running, with no result yet, when it stopped:")
      lines += run.unfinishedTests.map { "  \($0)" }
    }
    let sides = both ? ["yours", "solution"] : ["yours"]
    var notStarted: [String] = []
    for missing in sides.flatMap(report.notRun(on:))
    where !run.unfinishedTests.contains(missing.check) && !notStarted.contains(missing.check) {
      notStarted.append(missing.check)
    }
    if !notStarted.isEmpty {
      lines.append("Not started when it stopped:")
      lines += notStarted.map { "  \($0)" }
    }
    lines.append(
      (report.declared == nil
        ? "The checks after it did not run."
        : "The checks that did not run count as not run: neither passed nor failed.")
        + " `swift test --filter \(report.step.name)` shows the whole output.")
    return lines
  }

  /// The last line: what to do now.
  private var next: String {
    let number = report.step.number
    if report.isDone {
      return "Step \(number) is done: every check passes on your side. Compare with the solution: "
        + "swift run workshop diff \(number)"
    }
    return "Stuck? swift run workshop hint \(number) shows the next hint. Every detail: "
      + "swift test --filter \(report.step.name)"
  }

  /// One failure: its name and sides, what each side observed, and the lesson once.
  package static func describe(_ failure: StepReport.Failure, number: Int, step: Step) -> [String] {
    var lines = ["\(number). ✘ \(failure.check) — \(failure.labels)"]
    let lessons = failure.issues.compactMap { issue in
      issue.lesson.map { (label: failure.label(of: issue), lesson: $0) }
    }
    guard !lessons.isEmpty else {
      let other = failure.issues.flatMap { $0.sections.flatMap { $0 } }
      if other.isEmpty {
        lines.append(
          "   No details were printed: `swift test --filter \(step.name)` shows the output.")
      }
      lines += other.map { "   \($0)" }
      return lines
    }
    // Group the observations by lesson: sides that broke the same rule share its text.
    var groups: [(lesson: Lesson, observed: [(label: String, lines: [String])])] = []
    for (label, lesson) in lessons {
      let observation = (label: label, lines: lesson.observed)
      if let index = groups.firstIndex(where: {
        ($0.lesson.rule, $0.lesson.hint, $0.lesson.read) == (lesson.rule, lesson.hint, lesson.read)
      }) {
        if !groups[index].observed.contains(where: {
          $0.label == observation.label && $0.lines == observation.lines
        }) {
          groups[index].observed.append(observation)
        }
      } else {
        groups.append((lesson, [observation]))
      }
    }
    let order = failure.results.map(\.label)
    for var group in groups {
      // The summary's order, by side and shape (a stable sort keeps each side's issues in order).
      group.observed = group.observed.enumerated().sorted {
        let lhs = order.firstIndex(of: $0.element.label) ?? order.count
        let rhs = order.firstIndex(of: $1.element.label) ?? order.count
        return (lhs, $0.offset) < (rhs, $1.offset)
      }.map(\.element)
      let sameEverywhere = Set(group.observed.map(\.lines)).count == 1
      let oneLabel = Set(group.observed.map(\.label)).count == 1
      let shown = sameEverywhere ? [group.observed[0]] : group.observed
      for observation in shown where !observation.lines.isEmpty {
        let tag = sameEverywhere || oneLabel ? "" : " (\(observation.label))"
        lines += field("Observed\(tag)", observation.lines.joined(separator: "\n"))
      }
      lines += field("Rule", group.lesson.rule)
      lines += field("Hint", group.lesson.hint)
      lines += field("Read", group.lesson.read)
    }
    return lines
  }

  /// `   Rule: …`, its further lines indented under it.
  private static func field(_ name: String, _ value: String?) -> [String] {
    guard let value else { return [] }
    let parts = value.split(separator: "\n", omittingEmptySubsequences: false)
    return ["   \(name): \(parts[0])"] + parts.dropFirst().map { "   \($0)" }
  }
}
