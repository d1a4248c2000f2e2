// swift-tools-version: 6.0
import PackageDescription

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
    .target(
      name: "Step1", dependencies: ["ManagedObjectCore"], path: "Steps/Step1-UnsafeController"),
    .target(
      name: "Step1Solution", dependencies: ["ManagedObjectCore"],
      path: "Solutions/Step1-UnsafeController"),
    .testTarget(
      name: "Step1Tests",
      dependencies: ["Step1", "Step1Solution", "ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/Step1Tests"),
    .target(
      name: "Step2", dependencies: ["ManagedObjectCore"], path: "Steps/Step2-ObjectIDRefetch"),
    .target(
      name: "Step2Solution", dependencies: ["ManagedObjectCore"],
      path: "Solutions/Step2-ObjectIDRefetch"),
    .testTarget(
      name: "Step2Tests",
      dependencies: ["Step2", "Step2Solution", "ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/Step2Tests"),
    .testTarget(
      name: "HarnessTests", dependencies: ["ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/HarnessTests"),
    .target(name: "Step3", dependencies: ["ManagedObjectCore"], path: "Steps/Step3-GlobalActor"),
    .target(
      name: "Step3Solution", dependencies: ["ManagedObjectCore"],
      path: "Solutions/Step3-GlobalActor"),
    .testTarget(
      name: "Step3Tests",
      dependencies: ["Step3", "Step3Solution", "ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/Step3Tests", exclude: ["Probes"]),
    .target(
      name: "Step4", dependencies: ["ManagedObjectCore"], path: "Steps/Step4-CustomExecutor"),
    .target(
      name: "Step4Solution", dependencies: ["ManagedObjectCore"],
      path: "Solutions/Step4-CustomExecutor"),
    .testTarget(
      name: "Step4Tests",
      dependencies: ["Step4", "Step4Solution", "ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/Step4Tests"),
    .target(
      name: "Step5", dependencies: ["ManagedObjectCore"], path: "Steps/Step5-ReadWriteScheduler"),
    .target(
      name: "Step5Solution", dependencies: ["ManagedObjectCore"],
      path: "Solutions/Step5-ReadWriteScheduler"),
    .testTarget(
      name: "Step5Tests",
      dependencies: ["Step5", "Step5Solution", "ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/Step5Tests", exclude: ["Probes"]),
    .target(name: "Step6", dependencies: ["ManagedObjectCore"], path: "Steps/Step6-ModelActor"),
    .target(
      name: "Step6Solution", dependencies: ["ManagedObjectCore"],
      path: "Solutions/Step6-ModelActor"),
    .testTarget(
      name: "Step6Tests",
      dependencies: ["Step6", "Step6Solution", "ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/Step6Tests", exclude: ["Probes"]),
    // The README and the slides against the repository's code.
    .testTarget(name: "DocsTests", path: "Tests/DocsTests"),
    .testTarget(
      name: "CoreTests",
      dependencies: ["ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/CoreTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)
