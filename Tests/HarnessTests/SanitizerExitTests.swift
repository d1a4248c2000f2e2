import Testing
import WorkshopSupport

/// A child process that ran under the thread sanitizer and saw a race exits with the
/// sanitizer's code after finishing: that is the race check's to teach, not a death.
@Suite("Exam harness — a sanitized child's exit")
struct SanitizerExitTests {
  static let report = """
    ==================
    WARNING: ThreadSanitizer: data race (pid=4242)
      Write of size 8 at 0x7b0c00001234 by thread T3:
    ==================
    SUMMARY: ThreadSanitizer: data race Controller.swift:44 in rename(to:)
    ==================
    Test output after it
    """

  @Test("a finished child with race reports and the sanitizer's exit code is not a death")
  func racesOnly() {
    #expect(SanitizerExit.isOnlyReports(.exitCode(66), standardError: Self.report))
  }

  @Test("its reports are passed on for the race check, and nothing else")
  func reportsPassedOn() {
    let kept = SanitizerExit.reports(in: "before\n" + Self.report)
    #expect(kept.hasPrefix("WARNING: ThreadSanitizer: data race"))
    #expect(kept.contains("SUMMARY: ThreadSanitizer"))
    #expect(!kept.contains("before") && !kept.contains("Test output after it"))
  }

  @Test("a child that died, failed plainly or exited cleanly is not taken for one")
  func others() {
    #expect(!SanitizerExit.isOnlyReports(.exitCode(0), standardError: Self.report))
    #expect(!SanitizerExit.isOnlyReports(.exitCode(1), standardError: "Fatal error: boom"))
    #expect(
      !SanitizerExit.isOnlyReports(
        .exitCode(66), standardError: Self.report + "\nWORKSHOP-CHILD-DIED SIGILL, a trap"))
  }
}
