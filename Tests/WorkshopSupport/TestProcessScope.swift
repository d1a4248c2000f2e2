import Foundation
import WorkshopBuildLayout

/// Which tests this test process holds: the whole package's, or one test target's.
///
/// SwiftPM's native build system links every test target into one product,
/// `<Package>PackageTests` (swift-package-manager, `Sources/PackageLoading/PackageBuilder.swift`,
/// `constructProducts`), so `swift test` starts one test process. Swift Build, SwiftPM's default
/// from Swift 6.4 (Xcode 27) and `--build-system swiftbuild` on 6.3, makes one product per test
/// target and runs them one after another, each in its own process, every one with the same
/// `--filter` (`SwiftTestCommand.swift`, `runTestProducts`); Xcode also builds a bundle per
/// test target. The product's name is in the path SwiftPM starts:
/// `…/<Target>-test-runner` (Swift Build, Linux), `…/<Target>.xctest/Contents/MacOS/<Target>`
/// after `--test-bundle-path` (Swift Build, macOS), `…/<Package>PackageTests.xctest` (native).
package enum TestProcessScope: Equatable, Sendable {
  /// Every test target, in this one process: nothing runs after it.
  case wholePackage
  /// One test target, by name: other targets' processes may run after this one.
  case oneTarget(String)
  /// No test product's name was found in what the process was given.
  case unknown

  /// This process's scope.
  package static let current = TestProcessScope(BuiltModules.Inputs.current)

  /// The scope named by the first test product found in `inputs`: the bundle after
  /// `--test-bundle-path`, a bundle among the arguments, argv[0], a loaded bundle, or
  /// `XCTestBundlePath`, the places ``BuiltModules`` searches too.
  package init(_ inputs: BuiltModules.Inputs) {
    var paths: [String] = []
    let arguments = inputs.arguments
    for (index, argument) in arguments.enumerated().dropLast()
    where argument == "--test-bundle-path" {
      paths.append(arguments[index + 1])
    }
    paths += arguments.dropFirst().filter(BuiltModules.isBundlePath)
    paths += arguments.prefix(1)
    paths += inputs.loadedBundles.filter(BuiltModules.isBundlePath)
    paths += inputs.environment["XCTestBundlePath"].map { [$0] } ?? []
    guard let product = paths.lazy.compactMap(Self.productName(in:)).first else {
      self = .unknown
      return
    }
    self = product.hasSuffix("PackageTests") ? .wholePackage : .oneTarget(product)
  }

  /// The test product a path belongs to: `Name` in `…/Name.xctest/…` or `…/Name-test-runner`
  /// (`.exe` on Windows); nil for any other path, such as `swiftpm-testing-helper`.
  static func productName(in path: String) -> String? {
    let components = path.split(separator: "/")
    if let bundle = components.first(where: { $0.hasSuffix(".xctest") }) {
      return String(bundle.dropLast(".xctest".count))
    }
    guard var last = components.last else { return nil }
    if last.hasSuffix(".exe") { last = last.dropLast(4) }
    guard last.hasSuffix("-test-runner"), last.count > "-test-runner".count else { return nil }
    return String(last.dropLast("-test-runner".count))
  }
}
