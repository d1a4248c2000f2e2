// swift-tools-version: 6.0
import PackageDescription

/// One step of the workshop: the starter the attendee edits (`StepN`, in `Steps/`), the
/// reference with the same public API (`StepNSolution`, in `Solutions/`), and the checks that run
/// against both (`StepNTests`). Compile probes in `Tests/StepNTests/Probes` stay out of the build.
func step(_ number: Int, _ folder: String, hasProbes: Bool = false) -> [Target] {
  let name = "Step\(number)"
  return [
    .target(name: name, dependencies: ["ManagedObjectCore"], path: "Steps/\(folder)"),
    .target(
      name: "\(name)Solution", dependencies: ["ManagedObjectCore"], path: "Solutions/\(folder)"),
    .testTarget(
      name: "\(name)Tests",
      dependencies: [
        .target(name: name), .target(name: "\(name)Solution"), "ManagedObjectCore",
        "WorkshopSupport",
      ],
      path: "Tests/\(name)Tests", exclude: hasProbes ? ["Probes"] : []),
  ]
}

let package = Package(
  name: "CoreDataConcurrencyWorkshop",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "ManagedObjectCore", targets: ["ManagedObjectCore"])
  ],
  targets: [
    .target(name: "ManagedObjectCore", path: "Steps/Core"),
    // Shared by the test targets: the exam harness, teaching expectations, bounded waits.
    .target(
      name: "WorkshopSupport", dependencies: ["ManagedObjectCore"], path: "Tests/WorkshopSupport"),
    .testTarget(
      name: "CoreTests",
      dependencies: ["ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/CoreTests"
    ),
    .testTarget(
      name: "HarnessTests", dependencies: ["ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/HarnessTests"),
    // The README and the slides against the repository's code.
    .testTarget(name: "DocsTests", path: "Tests/DocsTests"),
  ]
    + step(1, "Step1-UnsafeController")
    + step(2, "Step2-ObjectIDRefetch")
    + step(3, "Step3-GlobalActor", hasProbes: true)
    + step(4, "Step4-CustomExecutor")
    + step(5, "Step5-ReadWriteScheduler", hasProbes: true)
    + step(6, "Step6-ModelActor", hasProbes: true),
  swiftLanguageModes: [.v6]
)
