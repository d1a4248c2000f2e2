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
    // Shared by the test targets: bounded waits now; the exam harness as the steps arrive.
    .target(name: "WorkshopSupport", path: "Tests/WorkshopSupport"),
    .testTarget(
      name: "CoreTests",
      dependencies: ["ManagedObjectCore", "WorkshopSupport"],
      path: "Tests/CoreTests"
    ),
  ],
  swiftLanguageModes: [.v6]
)
