import Foundation
import WorkshopEnvironment

/// Where the modules the test build made are, for the tools that compile against them (compile
/// probes, drift checks): the folder to pass to `swiftc -I`.
///
/// The test binary is launched differently on each platform, so its own path is not enough:
///
/// - Linux, `swift test`: argv[0] is `.build/<triple>/debug/<Package>PackageTests.xctest`, with
///   the modules in `.build/<triple>/debug/Modules`.
/// - macOS, `swift test`, Swift Testing: argv[0] is the toolchain's `swiftpm-testing-helper`,
///   which loads the bundle named after `--test-bundle-path`
///   (`…/debug/<Package>PackageTests.xctest/Contents/MacOS/<Package>PackageTests`). XCTest: argv[0]
///   is `xctest`, and the bundle is an argument.
/// - Xcode: the products are in `DerivedData/<Package>-<hash>/Build/Products/Debug`, where each
///   module is a `<Module>.swiftmodule` folder right there, with no `Modules` folder. Xcode's
///   test runs name that folder in `__XCODE_BUILT_PRODUCTS_DIR_PATHS`, `DYLD_FRAMEWORK_PATH`
///   and `DYLD_LIBRARY_PATH`, and may name the bundle in `XCTestBundlePath`; none of these is
///   documented, so each is one candidate among several, and the package's own `.build`
///   (found from this file's path) is the last resort.
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
      // SwiftPM links `.build/debug` to the last triple built; the triples cover a clone built
      // without that link, and `out/Products` is the swiftbuild build system's layout.
      let builds =
        [".build/debug"] + sourceTreeTriples.map { ".build/\($0)/debug" } + [
          ".build/out/Products/Debug"
        ]
      for build in builds {
        add(
          root + "/" + build, "the package's own build, found from the source tree",
          above: false, fallback: true)
      }
    }
    return found
  }

  /// The triples whose `.build/<triple>/debug` the last resort looks in.
  static let sourceTreeTriples = [
    "arm64-apple-macosx", "x86_64-apple-macosx", "aarch64-unknown-linux-gnu",
    "x86_64-unknown-linux-gnu",
  ]

  /// The folder `-I` takes, reached from `candidate`: a `Modules` folder holding the marker
  /// (SwiftPM), or a folder holding it directly (Xcode's `Build/Products/Debug`).
  public static func modulesFolder(from candidate: Candidate, exists: (String) -> Bool) -> String? {
    var folder = candidate.path
    while true {
      let base = folder == "/" ? "" : folder
      if exists(base + "/Modules/" + marker) { return base + "/Modules" }
      if exists(base + "/" + marker) { return folder }
      guard candidate.searchesAbove, folder != "/" else { return nil }
      folder = parent(of: folder)
    }
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

  /// This run's search, done once.
  public static let thisRun: Search = {
    let result = search(.current, exists: { FileManager.default.fileExists(atPath: $0) })
    if case .found(let folder, let via) = result, via.isSourceTreeFallback {
      print(fallbackNote(folder: folder))
    }
    return result
  }()

  /// Said once when the modules come from the source tree rather than the running binary.
  public static func fallbackNote(folder: String) -> String {
    "Compile probes: the running test binary is not inside a build folder; using the modules "
      + "of the package's own build, found from the source tree: \(folder). If that build is "
      + "old, or from another toolchain, set \(WorkshopEnvironment.modules.name) to the folder "
      + "with \(marker)."
  }

  static func isBundlePath(_ path: String) -> Bool {
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

extension BuiltModules.Search {
  /// Why nothing can be compiled against the build, what was looked at, and the fix; nil when
  /// the modules were found.
  public var explanation: String? {
    guard case .missing(let tried, let root, let override) = self else { return nil }
    let variable = WorkshopEnvironment.modules.name
    let marker = BuiltModules.marker
    if let override {
      return "No built modules: \(variable)=\(override) names no folder with \(marker) (in it, "
        + "or in a Modules folder in it; looked in \(tried.map(\.path).joined(separator: ", ")))."
        + "\nFix: set \(variable) to the folder that holds \(marker) (`.build/debug/Modules` "
        + "after `swift build --build-tests`, or Xcode's `…/Build/Products/Debug`), or unset it."
    }
    let clone = root.map { " in the clone (\($0))" } ?? ""
    return "No built modules: compiling against the code needs the folder that holds \(marker) "
      + "(`.build/debug/Modules` after `swift build --build-tests`; `Build/Products/Debug` in "
      + "Xcode's DerivedData), and none was found. Looked in:\n"
      + tried.map { "  - \($0)\n" }.joined()
      + "Fix: run `swift build --build-tests`\(clone), then the tests again; or set "
      + "\(variable)=<the folder with \(marker)>."
  }
}
