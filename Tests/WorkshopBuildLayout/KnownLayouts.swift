extension BuiltModules {
  /// Where one build puts its products, relative to the package (or to Xcode's DerivedData), and
  /// the folder `swiftc -I` takes there.
  public struct KnownLayout: Sendable {
    public let name: String
    /// What `swift build --show-bin-path` prints (Xcode: its products folder).
    public let binPath: String
    /// The folder that holds `ManagedObjectCore.swiftmodule`.
    public let modules: String
  }

  /// Every build's layout the search knows. Native and Swift Build on Linux are what
  /// `swift build --show-bin-path` printed here (Swift 6.3.1, with and without
  /// `--build-system swiftbuild`); macOS's follow SwiftPM's `BuildParameters.buildPath`
  /// (swiftlang/swift-package-manager, Sources/SPMBuildCore/BuildParameters/BuildParameters.swift);
  /// Xcode's is DerivedData's products folder. None of the macOS ones was run here.
  public static let knownLayouts: [KnownLayout] = [
    KnownLayout(
      name: "native, Linux", binPath: ".build/x86_64-unknown-linux-gnu/debug",
      modules: ".build/x86_64-unknown-linux-gnu/debug/Modules"),
    KnownLayout(
      name: "native, macOS", binPath: ".build/arm64-apple-macosx/debug",
      modules: ".build/arm64-apple-macosx/debug/Modules"),
    KnownLayout(
      name: "Swift Build, Linux", binPath: ".build/out/Products/Debug-linux",
      modules: ".build/out/Products/Debug-linux"),
    KnownLayout(
      name: "Swift Build, macOS", binPath: ".build/out/Products/Debug",
      modules: ".build/out/Products/Debug"),
    KnownLayout(
      name: "Xcode", binPath: "DerivedData/CoreDataConcurrencyWorkshop-abc/Build/Products/Debug",
      modules: "DerivedData/CoreDataConcurrencyWorkshop-abc/Build/Products/Debug"),
  ]
}
