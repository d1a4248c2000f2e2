import Foundation
import WorkshopSupport
import workshop

/// Output captured from real runs, in `Fixtures/`: `swift test --filter StepN` with
/// `WORKSHOP_SIDE=yours` (both sides for `step1-both`), on the untouched starters, on a step whose
/// solution was copied over its starter (`-solved`), on a starter made to crash (`crash`: Step 1;
/// `crash-step3`: a force-unwrap in Step 3's `savedEntities(prefix:)`), with a filter that
/// matched nothing, and `swift build --build-tests` with a compile error in Step 2. Most are
/// trimmed of Swift Testing's `◇ … started.` lines; `step1-yours` and the crashes keep them.
///
/// Under Swift Build (`--build-system swiftbuild`, Swift 6.3.1, Linux), untrimmed, eleven test
/// processes a run: `swiftbuild-step1` and `swiftbuild-step5`, the attendee's
/// `swift test --build-system swiftbuild --filter StepN` on the untouched starters, and
/// `swiftbuild-step1-solved` on Step 1 with its solution copied over the starter (both sides);
/// `swiftbuild-crash`, the runner's `swift test --skip-build --filter Step1Tests` with
/// `WORKSHOP_SIDE=yours`, on Step 1's `configure()` made to force-unwrap its nil `entity` first.
///
/// The build failures the runner explains beyond their first line, each captured in a scratch
/// copy whose path is replaced by `capturedRoot`: `api-nonisolated` (Step 3's controller isolated
/// to `CoreDataActor` and `nonisolated` dropped from its `init`) and `api-renamed` (its
/// `rename(to:)` renamed), by `swift build --build-tests`, trimmed to the relevant lines; and an
/// error inside a macro's expansion, from a small package: `macro-predicate` (`swift build`, a
/// `#Predicate` that compares a class instance), `macro-predicate-llvm` (the same file by
/// `swiftc -diagnostic-style llvm`) and `macro-expect` (`swiftc`, an `await` inside `#expect` in a
/// test that is not async).
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
