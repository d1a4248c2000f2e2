/// One step's checks, as one run of `swift test` reported them.
package struct StepReport: Sendable {
  package let step: Step
  /// The step's results, in the summary's order.
  package let results: [CheckResult]
  package let run: TestRunOutput
  /// The checks the step declares, read from its sources, so that a run that stopped early
  /// counts the results it never printed; nil when they could not be read.
  package let declared: DeclaredChecks?

  /// The report of `step` in `run`; an error when no check of the step ran, so that a typo or a
  /// filter that matched nothing never passes for success. `only` is `WORKSHOP_CHECK`, which
  /// limits a run to one check.
  package init(
    step: Step, run: TestRunOutput, only: String? = nil, declared: DeclaredChecks? = nil
  ) throws(RunnerError) {
    let results = run.results(of: step)
    guard !results.isEmpty || !run.finished || !run.stopReasons.isEmpty else {
      var message =
        "No check of Step \(step.number) ran: `swift test --filter \(step.filter)` printed no "
        + "[\(step.name)] line."
      if let only {
        message += " WORKSHOP_CHECK is set to '\(only)', which runs only the check of that name."
      }
      throw RunnerError(message)
    }
    self.step = step
    self.results = results.sorted(by: CheckResult.inSummaryOrder)
    self.run = run
    self.declared = declared?.limited(to: only)
  }

  /// The results on the attendee's side.
  package var yours: [CheckResult] { results.filter { $0.side == "yours" } }
  /// Your results that pass, or that fail by design (known gaps), or are optional (stretch tasks
  /// not done yet).
  package var yoursSettled: Int { yours.filter(\.isSettled).count }
  /// Whether the run ended normally rather than crashing or being stopped by the watchdog.
  package var ranToTheEnd: Bool { run.finished && run.stopReasons.isEmpty }
  /// Every check on your side passes (a known gap fails by design), and the run ended normally.
  package var isDone: Bool { ranToTheEnd && !yours.isEmpty && yoursSettled == yours.count }

  /// A declared check with results that never came in on a side, because the run stopped.
  package struct Missing: Equatable, Sendable {
    package let check: String
    /// How many of its results on that side (one per subject).
    package let count: Int

    package init(check: String, count: Int) {
      self.check = check
      self.count = count
    }
  }

  /// The results `side` is missing because the run stopped first: for each declared check,
  /// its cases on that side that printed no result. Empty for a run that got to its end, in
  /// which a check that printed nothing did not run on purpose (`WORKSHOP_CHECK`).
  package func notRun(on side: String) -> [Missing] {
    guard !ranToTheEnd, let declared else { return [] }
    return declared.checks.compactMap { check in
      let got = results.filter { $0.name == check.name && $0.side == side }.count
      let missing = declared.cases(of: check, on: side) - got
      return missing > 0 ? Missing(check: check.name, count: missing) : nil
    }
  }

  /// `9 of 16 checks pass`, with the known gaps when there are some, and, for a run that
  /// stopped early, the checks that did not run: they count, neither as passing nor failing.
  package func count(of side: String) -> String {
    let results = results.filter { $0.side == side }
    let missing = notRun(on: side).map(\.count).reduce(0, +)
    let total = results.count + missing
    let passed = results.filter(\.passed).count
    let open = results.filter {
      if case .stretch = $0.note { return !$0.passed }
      return false
    }.count
    let gaps = results.filter { $0.isSettled && !$0.passed }.count - open
    var text = "\(passed) of \(total) check\(total == 1 ? "" : "s") pass"
    if gaps > 0 { text += ", \(gaps) known gap\(gaps == 1 ? "" : "s") (fails by design)" }
    if open > 0 { text += ", \(open) stretch task\(open == 1 ? "" : "s") open (optional)" }
    if missing > 0 {
      text += ", \(missing) did not run"
    } else if !ranToTheEnd, declared == nil {
      text += ", the others did not run"
    }
    return text
  }

  /// The failing checks, one per name, in the summary's order, with what they reported.
  package var failures: [Failure] {
    var failures: [Failure] = []
    for result in results where !result.isSettled {
      if let last = failures.last, last.check == result.name {
        failures[failures.count - 1].results.append(result)
      } else {
        failures.append(Failure(check: result.name, results: [result], issues: []))
      }
    }
    for index in failures.indices {
      let sides = Set(failures[index].results.map(\.side))
      failures[index].issues = run.issues.filter { issue in
        !issue.isKnown && issue.test == failures[index].check
          && (issue.side.map(sides.contains) ?? true)
      }
    }
    return failures
  }

  /// A failing check: its failing results (one per side and shape) and the issues it reported.
  package struct Failure: Sendable {
    package let check: String
    package var results: [CheckResult]
    package var issues: [ReportedIssue]

    /// `yours · actor, yours · class`.
    package var labels: String { results.map(\.label).joined(separator: ", ") }

    /// The label of the result an issue belongs to: its argument when a result has that
    /// label, else the one result on the issue's side.
    package func label(of issue: ReportedIssue) -> String {
      if let argument = issue.argument, results.contains(where: { $0.label == argument }) {
        return argument
      }
      let onSide = results.filter { $0.side == issue.side }
      return onSide.count == 1 ? onSide[0].label : (issue.argument ?? labels)
    }
  }
}
