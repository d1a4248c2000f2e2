import Foundation
import WorkshopSupport
import workshop

/// Output captured from real runs, in `Fixtures/`: `swift test --filter StepN` with
/// `WORKSHOP_SIDE=yours` (both sides for `step1-both`), on the untouched starters, on a step whose
/// solution was copied over its starter (`-solved`), on a starter made to crash, with a filter
/// that matched nothing, and `swift build --build-tests` with a compile error in Step 2. Most
/// are trimmed of Swift Testing's `◇ … started.` lines; `step1-yours` and `crash` keep them.
enum Fixture {
  static func text(_ name: String) throws -> String {
    try Repository.read("Tests/WorkshopRunnerTests/Fixtures/\(name).txt")
  }

  static func run(_ name: String) throws -> TestRunOutput {
    TestRunOutput(output: try text(name))
  }

  /// The root of the repository the fixtures were captured in, as their paths show it.
  static let capturedRoot = "/work/wt-runner"

  static let step1 = Step(folder: "Step1-UnsafeController")!
  static let step2 = Step(folder: "Step2-ObjectIDRefetch")!
  static let step3 = Step(folder: "Step3-GlobalActor")!
  static let step4 = Step(folder: "Step4-CustomExecutor")!
  static let step5 = Step(folder: "Step5-ReadWriteScheduler")!
}
