/// The races of `check N --race`, as lessons: each distinct race with a frame in the attendee's
/// files (`Steps/StepN-…/`), named by that line, and apart from them the races that lie only in
/// the core, the checks' harness or the runtime, which are not the attendee's to fix.
package struct RaceLessons: Sendable {
  package let step: Step
  /// How many runs of the checks the reports came from.
  package let runs: Int
  /// Distinct races in the attendee's files, in the order first seen.
  package let yours: [Race]
  /// Distinct races with no frame in the attendee's files.
  package let elsewhere: [Race]
  /// Mangled function names and what `swift demangle --simplified` made of them.
  package var names: [String: String] = [:]

  /// One race, however many times it was reported: its two accesses, each at the frame that
  /// names it (the attendee's, or for a race elsewhere the first one in a source file).
  package struct Race: Sendable {
    package var accesses: [Side]
    /// How many reports showed it (a plain data race and a Swift access race each count).
    package var reports: Int
    /// The runs it showed in, counted from 1.
    package var runs: Set<Int>
    /// What the memory is: `heap block of size 40`.
    package var location: String?
  }

  /// One access of a race, at the frame that names it.
  package struct Side: Sendable {
    /// Whether it writes.
    package var isWrite: Bool
    package var isPrevious: Bool
    package var thread: String
    /// `T2 'oot.default-qos'` as the report describes the thread, when it does.
    package var threadName: String?
    /// `Steps/Step1-UnsafeController/CoreDataController.swift`, or the file as printed.
    package var file: String?
    /// The line, when one of the reports gave it (a Swift access race often gives none).
    package var line: Int?
    /// The function of that frame, as printed (mangled).
    package var function: String
    /// What runs the access: a Swift task, a block on a Dispatch queue, nil when the stack
    /// does not say.
    package var runsIn: String?

    /// The side's identity within a race: its file and function, not its line, which some
    /// reports leave out.
    var key: String { "\(isWrite ? "w" : "r") \(file ?? "?") \(function)" }

    /// `Steps/Step1-UnsafeController/CoreDataController.swift:42`.
    package var place: String { "\(file ?? "an unknown file")\(line.map { ":\($0)" } ?? "")" }
  }

  /// The lessons of `reports`, each with the run it came from (counted from 1). `starterFiles`
  /// are the file names in the step's folder: a frame that names a bare file (as `atos` may on
  /// a Mac) is the attendee's when the step's folder has a file of that name.
  package init(
    step: Step, runs: Int, reports: [(run: Int, report: RaceReport)], starterFiles: Set<String>
  ) {
    self.step = step
    self.runs = runs
    var yours: [Race] = []
    var elsewhere: [Race] = []
    func isYours(_ frame: RaceReport.Frame) -> Bool {
      guard let path = frame.relativePath else { return false }
      return path.hasPrefix("\(step.starter)/")
        || (!path.contains("/") && starterFiles.contains(path))
    }
    for (run, report) in reports {
      let mine = report.accesses.map { $0.frames.first(where: isYours) }
      let isMine = mine.contains { $0 != nil }
      let sides = zip(report.accesses, mine).map { access, frame -> Side in
        let named =
          frame ?? (isMine ? nil : access.frames.first { $0.relativePath?.contains("/") == true })
          ?? access.frames.first { $0.file != nil } ?? access.frames.first
        return Side(
          isWrite: access.isWrite, isPrevious: access.isPrevious, thread: access.thread,
          threadName: report.threads[access.thread], file: named?.relativePath ?? named?.file,
          line: named?.line, function: named?.function ?? "<unknown>",
          runsIn: Self.runsIn(access.frames))
      }
      let race = Race(accesses: sides, reports: 1, runs: [run], location: report.location)
      if isMine { Self.add(race, to: &yours) } else { Self.add(race, to: &elsewhere) }
    }
    self.yours = yours
    self.elsewhere = elsewhere
  }

  /// Adds `race` to `races`, or merges it into the one with the same two sides (in either order):
  /// counts, runs, and the lines the earlier reports lacked.
  static func add(_ race: Race, to races: inout [Race]) {
    let keys = Set(race.accesses.map(\.key))
    guard let index = races.firstIndex(where: { Set($0.accesses.map(\.key)) == keys }) else {
      races.append(race)
      return
    }
    races[index].reports += 1
    races[index].runs.formUnion(race.runs)
    races[index].location = races[index].location ?? race.location
    for side in race.accesses {
      for other in races[index].accesses.indices
      where races[index].accesses[other].key == side.key && races[index].accesses[other].line == nil
      {
        races[index].accesses[other].line = side.line
      }
    }
  }

  /// What ran an access, from the bottom of its stack: a Swift task (the concurrency runtime's
  /// job), or a block on a Dispatch queue (a context's `perform` runs so).
  static func runsIn(_ frames: [RaceReport.Frame]) -> String? {
    if frames.contains(where: {
      $0.function.contains("runJobInEstablishedExecutorContext")
        || $0.function.contains("swift_job_run")
    }) {
      return "in a Swift task"
    }
    if frames.contains(where: {
      $0.function.contains("_dispatch_") || $0.function.contains("dispatch_callback")
    }) {
      return "in a block on a Dispatch queue (a context's perform block runs so)"
    }
    return nil
  }

  /// Where a race outside the attendee's files lies, from its path.
  static func owner(of file: String?) -> String {
    guard let file else { return "the Swift runtime or a library" }
    if file.hasPrefix("Steps/Core/") { return "the core (ManagedObjectCore)" }
    if file.hasPrefix("Tests/") { return "the checks and their harness" }
    if file.hasPrefix("Solutions/") { return "a solution" }
    if file.hasPrefix("Steps/") { return "another step's starter" }
    return owner(of: nil)
  }

  // MARK: The lesson

  /// The slide to read for a race in each step's code: where the deck says what protects the
  /// state. A step without one here gets its deck.
  static let slides: [Int: String] = [
    1: "slides/01-unsafe-controller.md#why-the-class-may-stay-unchecked-sendable",
    2: "slides/02-objectid-refetch.md#sendable-state",
    3: "slides/03-global-actor.md#the-rule",
    4: "slides/04-custom-executor.md#serial-means-serial",
    5: "slides/05-read-write-scheduler.md#you-will-need",
    6: "slides/06-model-actor.md#the-rule",
  ]

  static let rule =
    "State that more than one thread reaches must be protected: used only inside the context's "
    + "perform (its queue is serial: it is the lock), kept on an actor, or behind a lock "
    + "(Synchronization's Mutex). Code after `await moc.perform { … }` returns runs on the "
    + "caller's thread, not on the context's queue. The confinement checker watches only the "
    + "context and its objects; plain Swift state is the thread sanitizer's."

  /// The function's name for people: demangled and simplified when `names` has it, without
  /// the partial-function prefix of async code.
  func readable(_ function: String) -> String {
    var name = names[function] ?? function
    for prefix in ["(1) await resume partial function for ", "await resume partial function for "] {
      if let range = name.range(of: prefix) { name = String(name[range.upperBound...]) }
    }
    while let range = name.range(of: #"^\(\d+\) "#, options: .regularExpression) {
      name.removeSubrange(range)
    }
    return name
  }

  /// `a write at …:42 in CoreDataController.rename(to:), on thread T2, in a Swift task`.
  func describe(_ side: Side) -> String {
    var text =
      "\(side.isPrevious ? "earlier, " : "")a \(side.isWrite ? "write" : "read") at "
      + "\(side.place) in \(readable(side.function))"
    text += side.thread == "main" ? ", on the main thread" : ", on thread \(side.thread)"
    if let runsIn = side.runsIn { text += " \(runsIn)" }
    return text
  }

  /// `seen 3 times, in 2 of 3 runs`.
  func seen(_ race: Race) -> String {
    "seen \(race.reports) time\(race.reports == 1 ? "" : "s"), in \(race.runs.count) of \(runs) "
      + "run\(runs == 1 ? "" : "s")"
  }

  /// The lesson for each race in the attendee's files, the races elsewhere, and the summary.
  package func text(read deck: String?, log: String) -> String {
    var lines: [String] = []
    let number = step.number
    if !yours.isEmpty {
      lines.append("Data races in your code (\(step.starter)): \(yours.count).")
      for (index, race) in yours.enumerated() {
        let mine =
          race.accesses.first { $0.file?.hasPrefix(step.starter) == true } ?? race.accesses[0]
        lines += [
          "", "\(index + 1). ✘ A data race at \(mine.place), in \(readable(mine.function))",
        ]
        lines.append(
          "   Observed: two threads used the same memory with nothing ordering them (\(seen(race))):"
        )
        lines += race.accesses.map { "     \(describe($0))" }
        if let location = race.location { lines.append("     The memory: a \(location).") }
        lines.append("   Rule: \(Self.rule)")
        lines.append(
          "   Hint: Find the stored property used at \(mine.place): several tasks reach it at "
            + "once. Move its use into the perform block with the work it belongs to, or keep it "
            + "on an actor or in a Mutex. Then run the race check again.")
        lines.append("   Read: \(Self.slides[number] ?? deck ?? "the step's deck in slides/")")
      }
    }
    if !elsewhere.isEmpty {
      lines += [
        "",
        "Not in your code: \(elsewhere.count) race\(elsewhere.count == 1 ? "" : "s") with no frame in \(step.starter).",
        "These are not yours to fix. CI runs the same sanitizer over the core, the harness and the "
          + "solutions, so show it to a facilitator, with the whole output (\(log)):",
      ]
      for race in elsewhere {
        let known = race.accesses.first { Self.owner(of: $0.file) != Self.owner(of: nil) }
        lines.append("   - in \(Self.owner(of: known?.file)), \(seen(race)):")
        lines += race.accesses.map { "       \(describe($0))" }
      }
    }
    if !lines.isEmpty { lines.append("") }
    if yours.isEmpty {
      lines.append(
        "Race check of Step \(number): no data race seen in your code in \(runs) run\(runs == 1 ? "" : "s") "
          + "of the checks; the sanitizer only sees races that happen.")
    } else {
      let inRuns = yours.reduce(into: Set<Int>()) { $0.formUnion($1.runs) }.count
      lines.append(
        "Race check of Step \(number): \(yours.count) data race\(yours.count == 1 ? "" : "s") in "
          + "your code, seen in \(inRuns) of \(runs) run\(runs == 1 ? "" : "s"). Fix "
          + "\(yours.count == 1 ? "it" : "them"), then run `swift run workshop check \(number) --race` again."
      )
    }
    return lines.joined(separator: "\n")
  }
}
