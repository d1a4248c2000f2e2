import Foundation
import WorkshopEnvironment

/// Where the modules a build made are, for the tools that compile against them (the steps'
/// compile probes, the drift checks, `workshop doctor`): the folder to pass to `swiftc -I`.
///
/// Two layouts hold them (``modulesFolder(in:exists:)`` is the one rule, used by all of these):
///
/// - SwiftPM's native build system (the default up to Swift 6.3): a `Modules` folder in the build
///   folder, `.build/<triple>/debug/Modules`, with `.build/debug` a link to the last triple built.
/// - Swift Build (the default of Swift 6.4's SwiftPM, so of Xcode 27's `swift`; Swift 6.3 has it
///   behind `--build-system swiftbuild`) and Xcode: each `<Module>.swiftmodule` right in the
///   products folder. SwiftPM names it `.build/out/Products/Debug` on macOS and
///   `.build/out/Products/Debug-linux` on Linux (swiftlang/swift-package-manager,
///   `Sources/SPMBuildCore/BuildParameters/BuildParameters.swift`, `buildPath`;
///   `Sources/SPMBuildCore/Triple+Extensions.swift`, `out`); Xcode,
///   `DerivedData/<Package>-<hash>/Build/Products/Debug`.
///
/// The test binary is launched differently on each platform, so its own path is not enough:
///
/// - Linux, `swift test`: argv[0] is `.build/<triple>/debug/<Package>PackageTests.xctest` (native),
///   or `.build/out/Products/Debug-linux/<Target>-test-runner` (Swift Build: one runner per test
///   target, beside `<Target>.so`; `BuildParameters.swift`, `testBinaryRelativePath`).
/// - macOS, `swift test`, Swift Testing: argv[0] is the toolchain's `swiftpm-testing-helper`,
///   which loads the bundle named after `--test-bundle-path`
///   (`…/debug/<Package>PackageTests.xctest/Contents/MacOS/<Package>PackageTests`; under Swift
///   Build, `…/Products/Debug/<Target>.xctest/…`). XCTest: argv[0] is `xctest`, and the bundle is
///   an argument.
/// - Xcode: its test runs name the products folder in `__XCODE_BUILT_PRODUCTS_DIR_PATHS`,
///   `DYLD_FRAMEWORK_PATH` and `DYLD_LIBRARY_PATH`, and may name the bundle in
///   `XCTestBundlePath`; none of these is documented, so each is one candidate among several, and
///   the package's own `.build` (found from this file's path) is the last resort.
///
/// So the search is a pure function of what the process was given (``Inputs``) and of a
/// file-exists predicate, which the tests drive with fake layouts.
public enum BuiltModules {
  /// The module every layout holds, found in the folder that `-I` takes.
  public static let marker = "ManagedObjectCore.swiftmodule"

  /// One place to look, and where it came from.
  public struct Candidate: Sendable, Equatable, CustomStringConvertible {
    public let path: String
    /// What named this place, as the failure message says it.
    public let origin: String
    /// Whether the folders above `path` are searched too: a binary or a bundle sits below its
    /// build folder; a folder named by a variable is the build folder itself.
    public let searchesAbove: Bool
    /// Found from this source file's path, not from the running binary: a `.build` left by
    /// another build may be stale, so using it is said once.
    public let isSourceTreeFallback: Bool

    public var description: String {
      "\(path)\(searchesAbove ? " and the folders above it" : "") (\(origin))"
    }
  }

  /// What the process was given.
  public struct Inputs: Sendable {
    public var arguments: [String]
    public var environment: [String: String]
    /// The paths of the bundles loaded in the process (`Bundle.allBundles`).
    public var loadedBundles: [String]
    public var currentDirectory: String
    /// A source file of the package (`#filePath`), for the last resort: the package's own build.
    public var sourceFile: String

    public init(
      arguments: [String], environment: [String: String] = [:], loadedBundles: [String] = [],
      currentDirectory: String = "/", sourceFile: String
    ) {
      self.arguments = arguments
      self.environment = environment
      self.loadedBundles = loadedBundles
      self.currentDirectory = currentDirectory
      self.sourceFile = sourceFile
    }

    /// This process's inputs, argv[0] followed through symbolic links.
    public static var current: Inputs {
      var arguments = CommandLine.arguments
      if let first = arguments.first {
        arguments[0] = URL(fileURLWithPath: first).resolvingSymlinksInPath().path
      }
      return Inputs(
        arguments: arguments, environment: ProcessInfo.processInfo.environment,
        loadedBundles: Bundle.allBundles.map(\.bundlePath),
        currentDirectory: FileManager.default.currentDirectoryPath, sourceFile: #filePath)
    }
  }

  /// What the search found.
  public enum Search: Sendable, Equatable {
    case found(folder: String, via: Candidate)
    /// `packageRoot` is the clone the source files are in, when it was found.
    case missing(tried: [Candidate], packageRoot: String?, override: String?)
  }

  /// The places to look, in order: the override, the places tied to the running binary (its
  /// bundle, argv[0], loaded bundles, Xcode's variables), and last the package's own `.build`.
  public static func candidates(
    _ inputs: Inputs, exists: (String) -> Bool
  ) -> [Candidate] {
    func absolute(_ path: String) -> String { normalized(path, in: inputs.currentDirectory) }
    if let override = inputs.environment[WorkshopEnvironment.modules.name], !override.isEmpty {
      // An explicit setting that is wrong must say so, not be passed over for a guess.
      return [
        Candidate(
          path: absolute(override), origin: WorkshopEnvironment.modules.name,
          searchesAbove: false, isSourceTreeFallback: false)
      ]
    }
    var found: [Candidate] = []
    func add(_ path: String, _ origin: String, above: Bool, fallback: Bool = false) {
      let path = absolute(path)
      guard !path.isEmpty, !found.contains(where: { $0.path == path }) else { return }
      found.append(
        Candidate(path: path, origin: origin, searchesAbove: above, isSourceTreeFallback: fallback))
    }
    let arguments = inputs.arguments
    for (index, argument) in arguments.enumerated().dropLast()
    where argument == "--test-bundle-path" {
      add(arguments[index + 1], "the test bundle after --test-bundle-path", above: true)
    }
    for argument in arguments.dropFirst() where isBundlePath(argument) {
      add(argument, "a test bundle in the arguments", above: true)
    }
    if let first = arguments.first { add(first, "the running binary, argv[0]", above: true) }
    for bundle in inputs.loadedBundles where isBundlePath(bundle) {
      add(bundle, "a loaded test bundle", above: true)
    }
    if let bundle = inputs.environment["XCTestBundlePath"] {
      add(bundle, "XCTestBundlePath", above: true)
    }
    for name in [
      "__XCODE_BUILT_PRODUCTS_DIR_PATHS", "DYLD_FRAMEWORK_PATH", "DYLD_LIBRARY_PATH",
      "LD_LIBRARY_PATH",
    ] {
      for folder in (inputs.environment[name] ?? "").split(separator: ":") {
        add(String(folder), name, above: false)
      }
    }
    if let root = packageRoot(above: absolute(inputs.sourceFile), exists: exists) {
      for build in sourceTreeBuildFolders {
        add(
          root + "/" + build, "the package's own build, found from the source tree",
          above: false, fallback: true)
      }
    }
    return found
  }

  /// The build folders of a clone that the last resort looks in, in order. SwiftPM's native
  /// build system links `.build/debug` to the last triple built; the triples cover a clone built
  /// without that link; Swift Build builds into `.build/out/Products/Debug` (macOS) or
  /// `Debug-linux` (Linux), with no link. A clone built both ways has both: the native build
  /// comes first, and the note that the source tree was used names the folder.
  static let sourceTreeBuildFolders =
    [".build/debug"]
    + [
      "arm64-apple-macosx", "x86_64-apple-macosx", "aarch64-unknown-linux-gnu",
      "x86_64-unknown-linux-gnu",
    ].map { ".build/\($0)/debug" }
    + [".build/out/Products/Debug", ".build/out/Products/Debug-linux"]

  /// The folder `swiftc -I` takes for the build in `folder` (a bin path, as `swift build
  /// --show-bin-path` prints it, or a products folder): its `Modules` folder when that holds the
  /// marker (SwiftPM's native build system), else `folder` itself when it holds the marker (Swift
  /// Build, Xcode); nil when neither does. Every search for built modules ends here.
  public static func modulesFolder(in folder: String, exists: (String) -> Bool) -> String? {
    for place in places(in: folder) where exists(place.folder + "/" + marker) {
      return place.folder
    }
    return nil
  }

  /// Where ``modulesFolder(in:exists:)`` looks in `folder`, in order, and which build puts the
  /// modules there: for the messages that say where they looked.
  public static func places(in folder: String) -> [(folder: String, layout: String)] {
    let base = folder == "/" ? "" : folder
    return [
      (base + "/Modules", "SwiftPM's native build system"),
      (folder, "Swift Build, the default of Xcode 27's SwiftPM; Xcode"),
    ]
  }

  /// The folder `-I` takes, reached from `candidate`: ``modulesFolder(in:exists:)`` of its path,
  /// and of each folder above it when the candidate is a binary or a bundle inside its build.
  public static func modulesFolder(from candidate: Candidate, exists: (String) -> Bool) -> String? {
    var folder = candidate.path
    while true {
      if let found = modulesFolder(in: folder, exists: exists) { return found }
      guard candidate.searchesAbove, folder != "/" else { return nil }
      folder = parent(of: folder)
    }
  }

  /// The modules the compile probes would compile against, for the build in `buildFolder`
  /// (what `swift build --show-bin-path` printed), as `workshop doctor` checks them:
  /// `WORKSHOP_MODULES` when it is set, as the probes take it, else that folder's.
  public static func search(
    buildFolder: String, environment: [String: String], currentDirectory: String,
    exists: (String) -> Bool
  ) -> Search {
    let variable = WorkshopEnvironment.modules.name
    let override = environment[variable].flatMap { $0.isEmpty ? nil : $0 }
    let candidate =
      override.map {
        Candidate(
          path: normalized($0, in: currentDirectory), origin: variable, searchesAbove: false,
          isSourceTreeFallback: false)
      }
      ?? Candidate(
        path: normalized(buildFolder, in: currentDirectory),
        origin: "the build folder `swift build --show-bin-path` names", searchesAbove: false,
        isSourceTreeFallback: false)
    if let folder = modulesFolder(from: candidate, exists: exists) {
      return .found(folder: folder, via: candidate)
    }
    return .missing(tried: [candidate], packageRoot: nil, override: override)
  }

  /// The first candidate's modules folder, or everything that was tried.
  public static func search(_ inputs: Inputs, exists: (String) -> Bool) -> Search {
    let candidates = candidates(inputs, exists: exists)
    for candidate in candidates {
      if let folder = modulesFolder(from: candidate, exists: exists) {
        return .found(folder: folder, via: candidate)
      }
    }
    let override = inputs.environment[WorkshopEnvironment.modules.name].flatMap {
      $0.isEmpty ? nil : $0
    }
    return .missing(
      tried: candidates,
      packageRoot: packageRoot(
        above: normalized(inputs.sourceFile, in: inputs.currentDirectory), exists: exists),
      override: override)
  }

  /// Whether `path` is, or is inside, a test bundle (`….xctest`): how macOS and Xcode start a
  /// native build's tests.
  public static func isBundlePath(_ path: String) -> Bool {
    path.hasSuffix(".xctest") || path.hasSuffix(".xctest/") || path.contains(".xctest/")
  }

  static func packageRoot(above file: String, exists: (String) -> Bool) -> String? {
    var folder = parent(of: file)
    while true {
      if exists((folder == "/" ? "" : folder) + "/Package.swift") { return folder }
      if folder == "/" { return nil }
      folder = parent(of: folder)
    }
  }

  /// `path` made absolute against `directory`, without `.`, `..` or repeated slashes; the file
  /// system is not asked.
  static func normalized(_ path: String, in directory: String) -> String {
    let joined = path.hasPrefix("/") ? path : directory + "/" + path
    var parts: [Substring] = []
    for part in joined.split(separator: "/") where part != "." {
      if part == ".." {
        _ = parts.popLast()
      } else {
        parts.append(part)
      }
    }
    return "/" + parts.joined(separator: "/")
  }

  static func parent(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
    return String(path[..<slash])
  }
}
