// swift-tools-version: 6.3
import PackageDescription

/// One step of the workshop: the starter the attendee edits (`StepN`, in `Steps/`), the
/// reference with the same public API (`StepNSolution`, in `Solutions/`), and the checks that run
/// against both (`StepNTests`). Compile probes in `Tests/StepNTests/Probes` and the attendee's
/// hints (`HINTS.md` and `Hints/`) stay out of the build. A step that `buildsOn` an earlier one
/// imports that step's solution for the code its lesson does not change, instead of a copy; its
/// starter still compiles without any other starter.
func step(_ number: Int, _ folder: String, hasProbes: Bool = false, buildsOn: Int? = nil)
  -> [Target]
{
  let name = "Step\(number)"
  let earlier: [Target.Dependency] = buildsOn.map { [.target(name: "Step\($0)Solution")] } ?? []
  return [
    .target(
      name: name, dependencies: ["ManagedObjectCore"] + earlier, path: "Steps/\(folder)",
      exclude: ["HINTS.md", "Hints"]),
    .target(
      name: "\(name)Solution", dependencies: ["ManagedObjectCore"] + earlier,
      path: "Solutions/\(folder)"),
    .testTarget(
      name: "\(name)Tests",
      dependencies: [
        .target(name: name), .target(name: "\(name)Solution"), "ManagedObjectCore",
        "WorkshopSupport", "WorkshopEnvironment",
      ],
      path: "Tests/\(name)Tests", exclude: hasProbes ? ["Probes"] : []),
  ]
}

/// The steps, in order: number, folder, whether the step's tests have compile probes, and the
/// earlier step whose solution it imports (nil: none). `swift run workshop new-step` adds a step
/// here and everywhere else (`Tests/ADDING-A-STEP.md`).
let steps: [(number: Int, folder: String, hasProbes: Bool, buildsOn: Int?)] = [
  (1, "Step1-UnsafeController", true, nil),
  (2, "Step2-ObjectIDRefetch", false, nil),
  (3, "Step3-GlobalActor", true, nil),
  (4, "Step4-CustomExecutor", false, nil),
  (5, "Step5-ReadWriteScheduler", true, nil),
  (6, "Step6-ModelActor", true, nil),
]

/// The step modules, starters and solutions, which DriftTests compares.
let stepModules: [Target.Dependency] = steps.flatMap { step -> [Target.Dependency] in
  [.target(name: "Step\(step.number)"), .target(name: "Step\(step.number)Solution")]
}

let package = Package(
  name: "CoreDataConcurrencyWorkshop",
  platforms: [.macOS(.v26)],
  products: [
    .library(name: "ManagedObjectCore", targets: ["ManagedObjectCore"])
  ],
  targets: [
    .target(name: "ManagedObjectCore", path: "Steps/Core", exclude: ["CONCURRENCY.md"]),
    // Shared by the test targets: the exam harness, teaching expectations, bounded waits.
    .target(
      name: "WorkshopSupport",
      dependencies: ["ManagedObjectCore", "WorkshopEnvironment", "WorkshopBuildLayout"],
      path: "Tests/WorkshopSupport"),
    // What every step has (StepConventions), read by the checks and by `workshop new-step`.
    .target(name: "WorkshopConventions", path: "Tests/WorkshopConventions"),
    // Every WORKSHOP_* variable, read in one place (Foundation only: the runner uses it too).
    .target(name: "WorkshopEnvironment", path: "Tests/WorkshopEnvironment"),
    // Where a build put its modules (SwiftPM's native build, Swift Build, Xcode): the one search
    // the compile probes, the drift checks and `workshop doctor` share (Foundation only).
    .target(
      name: "WorkshopBuildLayout", dependencies: ["WorkshopEnvironment"],
      path: "Tests/WorkshopBuildLayout"),
    .testTarget(
      name: "CoreTests",
      dependencies: ["ManagedObjectCore", "WorkshopSupport", "WorkshopEnvironment"],
      path: "Tests/CoreTests"
    ),
    .testTarget(
      name: "HarnessTests",
      dependencies: ["ManagedObjectCore", "WorkshopSupport", "WorkshopBuildLayout"],
      path: "Tests/HarnessTests"),
    // The README, the slides and the hints against the repository's code.
    .testTarget(
      name: "DocsTests",
      dependencies: ["WorkshopSupport", "WorkshopEnvironment", "WorkshopConventions"],
      path: "Tests/DocsTests"),
    // Each starter against its solution: one public API, differences only where the step
    // teaches. It reads the step modules' interfaces, so it depends on all of them.
    .testTarget(
      name: "DriftTests",
      dependencies: ["WorkshopSupport", "WorkshopEnvironment"] + stepModules,
      path: "Tests/DriftTests"),
    // The workshop runner, `swift run workshop`: runs the steps' checks through `swift test` and
    // summarizes them. Foundation only. It lives under Tests/ with the rest of the workshop's tooling,
    // because the top level of the layout is fixed.
    .executableTarget(
      name: "workshop",
      dependencies: ["WorkshopEnvironment", "WorkshopConventions", "WorkshopBuildLayout"],
      path: "Tests/WorkshopRunner"),
    // The runner's parsing and state, on captured output (never a nested `swift test`).
    .testTarget(
      name: "WorkshopRunnerTests",
      dependencies: ["workshop", "WorkshopSupport", "WorkshopConventions", "WorkshopBuildLayout"],
      path: "Tests/WorkshopRunnerTests",
      exclude: ["Fixtures"]),
  ]
    + steps.flatMap {
      step($0.number, $0.folder, hasProbes: $0.hasProbes, buildsOn: $0.buildsOn)
    },
  swiftLanguageModes: [.v6]
)
