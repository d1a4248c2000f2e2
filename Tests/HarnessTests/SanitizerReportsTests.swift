import Testing
import WorkshopSupport

/// A child process that ran under the thread sanitizer and saw a race: its reports reach the
/// parent's standard error, where the race check reads them.
@Suite("Exam harness — a sanitized child's reports")
struct SanitizerReportsTests {
  static let report = """
    ==================
    WARNING: ThreadSanitizer: data race (pid=4242)
      Write of size 8 at 0x7b0c00001234 by thread T3:
    ==================
    SUMMARY: ThreadSanitizer: data race Controller.swift:44 in rename(to:)
    ==================
    Test output after it
    """

  @Test("its reports are passed on, and nothing else")
  func reportsPassedOn() {
    let kept = SanitizerReports.in("before\n" + Self.report)
    #expect(kept.hasPrefix("WARNING: ThreadSanitizer: data race"))
    #expect(kept.contains("SUMMARY: ThreadSanitizer"))
    #expect(!kept.contains("before") && !kept.contains("Test output after it"))
  }
}
