import Foundation

/// Where the exam's own lines go: the scoreboard lines and the closing summary.
///
/// Standard error, the stream Swift Testing writes its console output to (swift-testing,
/// `Sources/Testing/ABI/EntryPoints/EntryPoint.swift`: "write events to stderr"). `swift test`
/// reads a test process's standard output and standard error in two threads and prints what
/// each brings as it comes (swift-package-manager, `Sources/Basics/Concurrency/AsyncProcess.swift`),
/// so lines on the two streams reach the screen in no fixed order: on standard output, the
/// summary came before the run's closing `Test run with …` line in 1 run of 20 under Swift Build
/// and 1 of 60 under the native build system (Step 1, Linux), and a scoreboard line after the
/// summary in 1 of 6 Swift Build runs (Step 6). On the one stream they keep the order written.
enum ExamOutput {
  /// Writes `text` as it is, at once: one write for a line, which a pipe keeps whole.
  static func write(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }
}
