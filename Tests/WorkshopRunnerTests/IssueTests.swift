import Testing
import workshop

@Suite("Runner: issue blocks")
struct IssueTests {
  static let configure = "configure() from many concurrent tasks records no violation"

  @Test("A check's issue block gives its check, what it observed, and its lesson")
  func readsALesson() throws {
    let run = try Fixture.run("step1-yours")
    let issues = run.issues.filter { $0.test == Self.configure }
    #expect(issues.map(\.argument) == ["yours · class", "yours · actor"])
    let lesson = try #require(issues.first?.lesson)
    #expect(lesson.check == Self.configure)
    #expect(
      lesson.observed == [
        "While configure() ran in 20 concurrent tasks, 40 violation(s) were recorded:",
        "  ×20 Confinement violation: insert of CoreDataEntity (context 'CoreDataController.moc') "
          + "in a Swift task on the cooperative thread pool, outside any perform block.",
        "  ×20 Confinement violation: save (context 'CoreDataController.moc') in a Swift task on the "
          + "cooperative thread pool, outside any perform block.",
      ])
    #expect(lesson.rule?.hasPrefix("A context and its managed objects may only be used") == true)
    #expect(lesson.hint?.hasPrefix("Wrap every use of `moc` and `entity`") == true)
    #expect(lesson.read == "slides/01-unsafe-controller.md#the-rule")
  }

  @Test("An `Observed:` line loses its label; a side argument loses its dot")
  func readsObservedAndSide() throws {
    let run = try Fixture.run("step1-yours")
    let issue = try #require(
      run.issues.first { $0.test == "the actor keeps the entity's ID, not the entity" })
    #expect(issue.argument == "yours")
    #expect(issue.side == "yours")
    #expect(issue.lesson?.observed == ["after configure() the actor stores entity: CoreDataEntity"])
  }

  @Test("Every issue of a run is read, and each check's issue has a lesson")
  func readsEveryIssue() throws {
    let text = try Fixture.text("step5-yours")
    let headers = text.split(separator: "\n").filter { $0.contains("\" recorded an issue") }
    let run = TestRunOutput(output: text)
    #expect(run.issues.count == headers.count)
    #expect(run.issues.allSatisfy { $0.lesson?.check == $0.test })
    let writes = run.issues.filter {
      $0.test == "a write never runs alongside a read or another write"
    }
    #expect(writes.count == 4)
  }

  @Test("An issue that is not a check's (an exit test's expectation) has no lesson")
  func readsOtherIssues() throws {
    let run = try Fixture.run("step4-yours")
    let issues = run.issues.filter {
      $0.test == "checkIsolated() stops the program off the context's queue, and only there"
    }
    #expect(issues.count == 2)
    #expect(issues[0].lesson == nil)
    #expect(issues[0].sections == [["checkIsolated() inside the context's perform must return"]])
    #expect(
      issues[1].lesson?.observed == [
        "checkIsolated() stopped the program inside the context's perform"
      ])
  }

  @Test("A known issue is marked known, with its lesson and the gap's reason as sections")
  func readsKnownIssues() throws {
    let run = try Fixture.run("step3-yours")
    let known = run.issues.filter(\.isKnown)
    #expect(known.count == 1)
    #expect(known.first?.test == "the actor's jobs run on the context's queue")
    #expect(known.first?.sections.count == 2)
    #expect(known.first?.lesson?.read == "slides/03-global-actor.md#the-gap")
  }
}
