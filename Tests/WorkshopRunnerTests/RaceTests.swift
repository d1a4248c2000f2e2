import Testing
import workshop

/// `check N --race`: the sanitizer's reports read (`RaceReport`) and turned into lessons
/// (`RaceLessons`). The fixtures are real output of this toolchain (Swift 6.3.1, Linux):
/// `race-step1-wrong` is one run of `swift test --sanitize=thread --filter Step1Tests` with
/// `WORKSHOP_SIDE=yours`, the suppressions and `halt_on_error=0`, in a scratch copy of the
/// repository (`/tmp/race/scratch`) whose Step 1 is the solution plus a counter of saves written
/// after `perform` returns (the example in `Tests/WrongAnswers/README.md`); `race-unsuppressed`
/// holds the three reports of the same run without `.ci/tsan-suppressions.txt`, which lie in the
/// harness (`Watchdog`) and in the core (a continuation's resume).
@Suite("Runner: the thread sanitizer's reports")
struct RaceTests {
  static let starterFiles: Set<String> = [
    "CoreDataController.swift", "CoreDataControllerActor.swift", "CoreDataEntity.swift",
  ]

  @Test("A Swift access race and a data race are read with their accesses, frames and threads")
  func readsReports() throws {
    let reports = RaceReport.all(in: try Fixture.text("race-step1-wrong"))
    try #require(reports.count == 2)
    let access = reports[0]
    try #require(access.accesses.count == 2)
    // `Modifying access of Swift variable … by thread T2:` is a write, with no size.
    #expect(access.accesses[0].isWrite && !access.accesses[0].isPrevious)
    #expect(access.accesses[0].thread == "T2" && access.accesses[0].size == nil)
    let frame = access.accesses[0].frames[0]
    #expect(frame.relativePath == "Steps/Step1-UnsafeController/CoreDataController.swift")
    #expect(frame.line == nil)  // this kind of report often leaves the line out
    #expect(frame.function == "$s5Step118CoreDataControllerC6rename2toySS_tYaKFTY2_")
    // `Previous write of size 1 at 0x… by thread T4:`, at line 42, column 11.
    #expect(access.accesses[1].isPrevious && access.accesses[1].size == 1)
    #expect(access.accesses[1].frames[0].line == 42)
    #expect(access.accesses[1].frames.count == 3)
    #expect(access.threads["T2"]?.hasPrefix("Thread T2 'oot.default-qos' (tid=") == true)
    #expect(access.location == "heap block of size 40 allocated by thread T4")
    let data = reports[1]
    #expect(data.accesses.map(\.kind) == ["Write", "Write"])
    #expect(data.accesses[0].size == 8)
    #expect(
      data.accesses.map { $0.frames[0].place } == [
        "Steps/Step1-UnsafeController/CoreDataController.swift:42",
        "Steps/Step1-UnsafeController/CoreDataController.swift:42",
      ])
  }

  @Test("A run without a report has none, and other sanitizer warnings are not races")
  func noReports() throws {
    #expect(RaceReport.all(in: try Fixture.text("step1-solved")).isEmpty)
    let other = """
      ==================
      WARNING: ThreadSanitizer: unlock of an unlocked mutex (or by a wrong thread) (pid=1)
        #0 pthread_mutex_unlock <null> (libc.so+0x1)
      SUMMARY: ThreadSanitizer: unlock of an unlocked mutex
      ==================
      """
    #expect(RaceReport.all(in: other).isEmpty)
  }

  @Test("Frames: a path and line, <null>, and a bare file name as a Mac's symbolizer may print")
  func frames() throws {
    let linux = try #require(
      RaceReport.frame(
        "#7 $s10Step1TestsAAV19renameFromManyTasks /home/me/My Work/workshop/Tests/Step1Tests/"
          + "Step1Tests.swift:160:31 (Tests.xctest+0xae92) (BuildId: 844f)"))
    #expect(linux.relativePath == "Tests/Step1Tests/Step1Tests.swift" && linux.line == 160)
    let unknown = try #require(
      RaceReport.frame("#1 swift_slowAlloc <null> (libswiftCore.so+0x46fa6e)"))
    #expect(unknown.function == "swift_slowAlloc" && unknown.file == nil)
    // Written by hand in the shape macOS reports are documented to take; not captured on a Mac.
    let mac = try #require(
      RaceReport.frame(
        "#0 CoreDataController.rename(to:) CoreDataController.swift:42 (Step1PackageTests:arm64+0x3a2c)"
      ))
    #expect(mac.relativePath == "CoreDataController.swift" && mac.line == 42)
    #expect(mac.function == "CoreDataController.rename(to:)")
  }

  @Test("A race in the attendee's files is one lesson, named by the attendee's line")
  func lessonForYourRace() throws {
    let reports = RaceReport.all(in: try Fixture.text("race-step1-wrong"))
    var lessons = RaceLessons(
      step: Fixture.step1, runs: 3, reports: reports.map { (1, $0) },
      starterFiles: Self.starterFiles)
    #expect(lessons.elsewhere.isEmpty)
    try #require(lessons.yours.count == 1)
    let race = lessons.yours[0]
    #expect(race.reports == 2 && race.runs == [1])
    // The line the access race left out comes from the data race.
    #expect(race.accesses.map(\.line) == [42, 42])
    lessons.names = [
      "$s5Step118CoreDataControllerC6rename2toySS_tYaKFTY2_": "CoreDataController.rename(to:)"
    ]
    let text = lessons.text(
      read: "slides/01-unsafe-controller.md", log: ".build-tsan/race-Step1.log")
    #expect(
      text.contains(
        "1. ✘ A data race at Steps/Step1-UnsafeController/CoreDataController.swift:42, in "
          + "CoreDataController.rename(to:)"))
    #expect(
      text.contains(
        "a write at Steps/Step1-UnsafeController/CoreDataController.swift:42 in "
          + "CoreDataController.rename(to:), on thread T2 in a Swift task"))
    #expect(text.contains("(seen 2 times, in 1 of 3 runs)"))
    #expect(text.contains("   Rule: State that more than one thread reaches must be protected"))
    #expect(text.contains("   Hint: "))
    #expect(
      text.contains(
        "   Read: slides/01-unsafe-controller.md#why-the-class-may-stay-unchecked-sendable"))
    #expect(
      text.hasSuffix(
        "Race check of Step 1: 1 data race in your code, seen in 1 of 3 runs. "
          + "Fix it, then run `swift run workshop check 1 --race` again."))
  }

  @Test("A race a Mac reports with bare file names is the attendee's when the step has that file")
  func bareFileNames() {
    let frame = RaceReport.Frame(
      function: "CoreDataController.rename(to:)", file: "CoreDataController.swift", line: 42)
    let access = RaceReport.Access(
      kind: "Write", isPrevious: false, size: 8, thread: "T3", frames: [frame])
    let report = RaceReport(accesses: [access, access], threads: [:], location: nil)
    let lessons = RaceLessons(
      step: Fixture.step1, runs: 1, reports: [(1, report)], starterFiles: Self.starterFiles)
    #expect(lessons.yours.count == 1)
    let other = RaceLessons(step: Fixture.step1, runs: 1, reports: [(1, report)], starterFiles: [])
    #expect(other.yours.isEmpty && other.elsewhere.count == 1)
  }

  @Test("Races only in the core or the harness are not the attendee's, and the summary says so")
  func racesElsewhere() throws {
    let reports = RaceReport.all(in: try Fixture.text("race-unsuppressed"))
    #expect(reports.count == 3)
    let lessons = RaceLessons(
      step: Fixture.step1, runs: 1, reports: reports.map { (1, $0) },
      starterFiles: Self.starterFiles)
    #expect(lessons.yours.isEmpty)
    #expect(lessons.elsewhere.count == 3)
    let text = lessons.text(read: nil, log: ".build-tsan/race-Step1.log")
    #expect(
      text.contains("Not in your code: 3 races with no frame in Steps/Step1-UnsafeController."))
    #expect(text.contains("   - in the checks and their harness, seen 1 time, in 1 of 1 run:"))
    #expect(text.contains("   - in the core (ManagedObjectCore), seen 1 time, in 1 of 1 run:"))
    #expect(text.contains("Tests/WorkshopSupport/Watchdog.swift:44"))
    #expect(text.contains("Steps/Core/Contexts/ContextCore/ContextCore+Perform.swift:55"))
    #expect(!text.contains("✘"))
    #expect(
      text.hasSuffix(
        "Race check of Step 1: no data race seen in your code in 1 run of the checks; the "
          + "sanitizer only sees races that happen."))
  }
}
