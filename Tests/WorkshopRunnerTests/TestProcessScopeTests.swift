import Testing
import WorkshopBuildLayout
import WorkshopSupport

/// Whether a test process is the package's only one, from the paths SwiftPM and Xcode start it
/// with (swift-package-manager, `Sources/SPMBuildCore/BuildParameters/BuildParameters.swift`,
/// `testBinaryRelativePath`; `Sources/Commands/SwiftTestCommand.swift`, `TestRunner.args`).
/// The macOS and Xcode paths are written from those sources, not seen on a Mac.
@Suite("Exam summary: which test process it is printed in")
struct TestProcessScopeTests {
  static func scope(
    _ arguments: [String], environment: [String: String] = [:], bundles: [String] = []
  ) -> TestProcessScope {
    TestProcessScope(
      BuiltModules.Inputs(
        arguments: arguments, environment: environment, loadedBundles: bundles,
        sourceFile: "/clone/Tests/WorkshopSupport/TestProcessScope.swift"))
  }

  @Test("The native build system's one test process holds the whole package")
  func native() {
    let linux = "/clone/.build/x86_64-unknown-linux-gnu/debug/WorkshopPackageTests.xctest"
    #expect(Self.scope([linux, "--testing-library", "swift-testing"]) == .wholePackage)
    let mac = "/clone/.build/arm64-apple-macosx/debug/WorkshopPackageTests.xctest"
    let helper = "/Applications/Xcode.app/Contents/Developer/usr/bin/swiftpm-testing-helper"
    #expect(
      Self.scope([
        helper, "--test-bundle-path", mac + "/Contents/MacOS/WorkshopPackageTests", "--filter",
        "Step1", mac + "/Contents/MacOS/WorkshopPackageTests",
      ]) == .wholePackage)
  }

  @Test("Swift Build's test processes hold one test target each")
  func swiftBuild() {
    let linux = "/clone/.build/out/Products/Debug-linux/Step1Tests-test-runner"
    #expect(Self.scope([linux, "--filter", "Step1"]) == .oneTarget("Step1Tests"))
    #expect(Self.scope(["C:/clone/Step2Tests-test-runner.exe"]) == .oneTarget("Step2Tests"))
    let mac = "/clone/.build/out/Products/Debug/Step5Tests.xctest/Contents/MacOS/Step5Tests"
    let helper = "/Applications/Xcode.app/Contents/Developer/usr/bin/swiftpm-testing-helper"
    #expect(
      Self.scope([helper, "--test-bundle-path", mac, "--filter", "Step5", mac])
        == .oneTarget("Step5Tests"))
  }

  @Test("Xcode's test bundles are named after their target")
  func xcode() {
    let bundle =
      "/Users/a/Library/Developer/Xcode/DerivedData/W-abc/Build/Products/Debug/"
      + "Step3Tests.xctest"
    #expect(
      Self.scope(["/Applications/Xcode.app/…/xctest"], environment: ["XCTestBundlePath": bundle])
        == .oneTarget("Step3Tests"))
    #expect(Self.scope(["/…/xctest"], bundles: [bundle]) == .oneTarget("Step3Tests"))
  }

  @Test("Without a test product's name, the scope is unknown")
  func unknown() {
    #expect(Self.scope(["/usr/bin/swiftpm-testing-helper", "--filter", "Step1"]) == .unknown)
    #expect(Self.scope([]) == .unknown)
    #expect(Self.scope(["/clone/-test-runner"]) == .unknown)
  }
}
