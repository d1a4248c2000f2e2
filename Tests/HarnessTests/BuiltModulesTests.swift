import Foundation
import Testing
import WorkshopBuildLayout
import WorkshopSupport

/// The search for the build's modules (`BuiltModules`), on fake layouts in a temporary folder:
/// each of the ways the test binary is launched, as SwiftPM (native and Swift Build) and Xcode
/// launch it, must lead to the modules of the build that made it, and a run that finds none must
/// say what it tried.
@Suite("Built modules are found however the test binary was launched")
struct BuiltModulesTests {
  static let product = "CoreDataConcurrencyWorkshopPackageTests"
  static let marker = BuiltModules.marker

  /// A temporary folder with the files and links a test lays out; removed at the end.
  final class Layout {
    let root: String

    init() throws {
      root =
        FileManager.default.temporaryDirectory
        .appendingPathComponent("built-modules-\(UUID().uuidString)").resolvingSymlinksInPath()
        .path
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    /// Makes the file at `path` (from the root), and its folders; a path ending in `/` is a
    /// folder. Returns its absolute path, without the trailing slash.
    @discardableResult
    func make(_ path: String) throws -> String {
      let full = root + "/" + path
      if path.hasSuffix("/") {
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        return String(full.dropLast())
      }
      try FileManager.default.createDirectory(
        atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      _ = FileManager.default.createFile(atPath: full, contents: Data())
      return full
    }

    /// A package clone at `clone`: its manifest and the source file the search starts from.
    func package(at clone: String) throws -> String {
      try make("\(clone)/Package.swift")
      return try make("\(clone)/Tests/WorkshopSupport/BuiltModules.swift")
    }

    func search(_ inputs: BuiltModules.Inputs) -> BuiltModules.Search {
      BuiltModules.search(inputs, exists: { FileManager.default.fileExists(atPath: $0) })
    }
  }

  static func folder(_ search: BuiltModules.Search) -> String? {
    guard case .found(let folder, _) = search else { return nil }
    return folder
  }

  static func via(_ search: BuiltModules.Search) -> BuiltModules.Candidate? {
    guard case .found(_, let via) = search else { return nil }
    return via
  }

  @Test(
    "Every build's bin path leads to the folder -I takes: Modules (native) or itself",
    arguments: BuiltModules.knownLayouts.map(\.name))
  func binPathLayouts(_ name: String) throws {
    let layout = try Layout()
    let known = try #require(BuiltModules.knownLayouts.first { $0.name == name })
    let (bin, modules) = (known.binPath, known.modules)
    try layout.make("\(modules)/\(Self.marker)/")
    // What else a build folder holds: the test product, and the other layout's folder name.
    try layout.make("\(bin)/\(Self.product).xctest")
    let found = BuiltModules.modulesFolder(
      in: "\(layout.root)/\(bin)", exists: { FileManager.default.fileExists(atPath: $0) })
    #expect(found == "\(layout.root)/\(modules)")
  }

  @Test("A bin path with neither layout: nothing, and the message names both places")
  func binPathWithNeither() throws {
    let layout = try Layout()
    let bin = try layout.make(".build/out/Products/Debug-linux/")
    try layout.make(".build/out/Products/Debug-linux/Step1.swiftmodule/")
    try layout.make(".build/out/Products/Debug-linux/Modules/")
    #expect(
      BuiltModules.modulesFolder(in: bin, exists: { FileManager.default.fileExists(atPath: $0) })
        == nil)
    #expect(
      BuiltModules.placesDescription(in: bin)
        == "`\(bin)/Modules` (SwiftPM's native build system) and `\(bin)` itself (Swift Build, "
        + "the default of Xcode 27's SwiftPM; Xcode)")
  }

  @Test("Swift Build on Linux: argv[0] is the test target's runner, beside the modules")
  func swiftBuildOnLinux() throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    // A native build of the same clone too: the runner's own build must win.
    try layout.make("clone/.build/debug/Modules/\(Self.marker)/")
    let products = "clone/.build/out/Products/Debug-linux"
    try layout.make("\(products)/\(Self.marker)/")
    try layout.make("\(products)/Step1Tests.so")
    let runner = try layout.make("\(products)/Step1Tests-test-runner")
    let search = layout.search(
      .init(
        arguments: [runner, "--testing-library", "swift-testing"], currentDirectory: layout.root,
        sourceFile: source))
    #expect(Self.folder(search) == "\(layout.root)/\(products)")
    #expect(Self.via(search)?.isSourceTreeFallback == false)
  }

  @Test("Swift Build on macOS: the target's bundle after --test-bundle-path, in Products/Debug")
  func swiftBuildOnMacOS() throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    let products = "clone/.build/out/Products/Debug"
    try layout.make("\(products)/\(Self.marker)/")
    let bundle = try layout.make("\(products)/Step3Tests.xctest/Contents/MacOS/Step3Tests")
    let helper = try layout.make("Xcode.app/usr/libexec/swift/pm/swiftpm-testing-helper")
    let search = layout.search(
      .init(
        arguments: [
          helper, "--test-bundle-path", bundle, bundle, "--testing-library", "swift-testing",
        ],
        currentDirectory: layout.root, sourceFile: source))
    #expect(Self.folder(search) == "\(layout.root)/\(products)")
  }

  @Test(
    "A copied test binary, and a clone built with Swift Build only: its products folder",
    arguments: ["Debug-linux", "Debug"])
  func copiedBinarySwiftBuild(_ configuration: String) throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    let products = "clone/.build/out/Products/\(configuration)"
    try layout.make("\(products)/\(Self.marker)/")
    let search = layout.search(
      .init(arguments: ["/elsewhere/Step1Tests-test-runner"], sourceFile: source))
    #expect(Self.folder(search) == "\(layout.root)/\(products)")
    #expect(Self.via(search)?.isSourceTreeFallback == true)
  }

  @Test("SwiftPM on Linux: argv[0] is the test binary, beside the Modules folder")
  func swiftPMOnLinux() throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    let debug = "clone/.build/x86_64-unknown-linux-gnu/debug"
    try layout.make("\(debug)/Modules/\(Self.marker)")
    let binary = try layout.make("\(debug)/\(Self.product).xctest")
    let search = layout.search(
      .init(
        arguments: [binary, "--testing-library", "swift-testing"], currentDirectory: layout.root,
        sourceFile: source))
    #expect(Self.folder(search) == "\(layout.root)/\(debug)/Modules")
    #expect(Self.via(search)?.isSourceTreeFallback == false)
  }

  @Test("SwiftPM on macOS, Swift Testing: the bundle after --test-bundle-path, not argv[0]")
  func swiftPMOnMacOS() throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    // A stale build of another triple in the same clone: the binary's own build must win.
    try layout.make("clone/.build/debug/Modules/\(Self.marker)/")
    let debug = "clone/.build/arm64-apple-macosx/debug"
    try layout.make("\(debug)/Modules/\(Self.marker)/")
    let bundle = try layout.make(
      "\(debug)/\(Self.product).xctest/Contents/MacOS/\(Self.product)")
    let helper = try layout.make("Xcode.app/usr/libexec/swift/pm/swiftpm-testing-helper")
    let search = layout.search(
      .init(
        arguments: [
          helper, "--test-bundle-path", bundle, bundle, "--testing-library", "swift-testing",
        ], currentDirectory: layout.root, sourceFile: source))
    #expect(Self.folder(search) == "\(layout.root)/\(debug)/Modules")
    #expect(Self.via(search)?.origin.contains("--test-bundle-path") == true)
  }

  @Test("SwiftPM on macOS, XCTest: xctest is argv[0], the bundle an argument")
  func xctestTool() throws {
    let layout = try Layout()
    let debug = "clone/.build/arm64-apple-macosx/debug"
    try layout.make("\(debug)/Modules/\(Self.marker)/")
    let bundle = try layout.make("\(debug)/\(Self.product).xctest/")
    let xctest = try layout.make("Xcode.app/Contents/Developer/usr/bin/xctest")
    let search = layout.search(
      .init(
        arguments: [xctest, bundle], currentDirectory: layout.root, sourceFile: "/nowhere.swift"))
    #expect(Self.folder(search) == "\(layout.root)/\(debug)/Modules")
  }

  /// Xcode's products folder, as each of the signals Xcode gives names it.
  static let xcodeSignals = [
    "__XCODE_BUILT_PRODUCTS_DIR_PATHS", "DYLD_FRAMEWORK_PATH", "XCTestBundlePath",
    "a loaded bundle",
  ]

  @Test("Xcode: the modules are in DerivedData's Build/Products/Debug", arguments: xcodeSignals)
  func xcodeDerivedData(_ signal: String) throws {
    let layout = try Layout()
    let products = "Library/Developer/Xcode/DerivedData/X-abc/Build/Products/Debug"
    try layout.make("\(products)/\(Self.marker)/arm64-apple-macos.swiftmodule")
    let folder = "\(layout.root)/\(products)"
    let bundle = try layout.make("\(products)/\(Self.product).xctest/")
    var inputs = BuiltModules.Inputs(
      arguments: [try layout.make("Xcode.app/Contents/Developer/Agents/xctest")],
      currentDirectory: layout.root, sourceFile: "/nowhere.swift")
    switch signal {
    case "a loaded bundle": inputs.loadedBundles = ["/System/Foundation.framework", bundle]
    case "XCTestBundlePath": inputs.environment[signal] = bundle
    default: inputs.environment[signal] = "\(folder):/Applications/Xcode.app/Frameworks"
    }
    #expect(Self.folder(layout.search(inputs)) == folder)
  }

  @Test("A copied test binary: the package's own .build, found from the source tree")
  func copiedBinary() throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    try layout.make("clone/.build/x86_64-unknown-linux-gnu/debug/Modules/\(Self.marker)")
    // SwiftPM's `debug` link to the triple's folder.
    try FileManager.default.createSymbolicLink(
      atPath: "\(layout.root)/clone/.build/debug",
      withDestinationPath: "x86_64-unknown-linux-gnu/debug")
    let binary = try layout.make("elsewhere/\(Self.product).xctest")
    let search = layout.search(
      .init(
        arguments: ["./\(Self.product).xctest", "--testing-library", "swift-testing"],
        currentDirectory: "\(layout.root)/elsewhere", sourceFile: source))
    #expect(Self.folder(search) == "\(layout.root)/clone/.build/debug/Modules")
    #expect(Self.via(search)?.isSourceTreeFallback == true)
    #expect(FileManager.default.fileExists(atPath: binary))
  }

  @Test("A copied test binary, and a clone built without the debug link: the triple's folder")
  func copiedBinaryTripleFolder() throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    try layout.make("clone/.build/arm64-apple-macosx/debug/Modules/\(Self.marker)/")
    let search = layout.search(
      .init(arguments: ["/elsewhere/\(Self.product).xctest"], sourceFile: source))
    #expect(Self.folder(search) == "\(layout.root)/clone/.build/arm64-apple-macosx/debug/Modules")
  }

  @Test("Nothing built: every place tried is listed, with the fix")
  func nothingFound() throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    let binary = try layout.make("elsewhere/\(Self.product).xctest")
    let search = layout.search(
      .init(
        arguments: [binary], environment: ["DYLD_LIBRARY_PATH": "/usr/lib"], sourceFile: source))
    guard case .missing(let tried, let root, nil) = search, let text = search.explanation else {
      Issue.record("found modules in an empty layout: \(search)")
      return
    }
    #expect(root == "\(layout.root)/clone")
    #expect(tried.first?.path == binary)
    for expected in [
      "\(binary) and the folders above it (the running binary, argv[0])",
      "/usr/lib (DYLD_LIBRARY_PATH)",
      "\(layout.root)/clone/.build/debug (the package's own build, found from the source tree)",
      "\(layout.root)/clone/.build/out/Products/Debug-linux (the package's own build",
      "in its Modules folder and in the folder itself",
      "`.build/out/Products/Debug` (macOS) or `.build/out/Products/Debug-linux` (Linux) with "
        + "Swift Build",
      "Fix: run `swift build --build-tests` in the clone (\(layout.root)/clone)",
      "WORKSHOP_MODULES=<the folder with \(Self.marker)>",
    ] {
      #expect(text.contains(expected), "\(text)")
    }
  }

  @Test("WORKSHOP_MODULES is used alone: right, it wins; wrong, it says so")
  func override() throws {
    let layout = try Layout()
    let source = try layout.package(at: "clone")
    try layout.make("clone/.build/debug/Modules/\(Self.marker)/")
    try layout.make("mine/\(Self.marker)/")
    try layout.make("empty/")
    func search(_ value: String) -> BuiltModules.Search {
      layout.search(
        .init(
          arguments: ["/elsewhere/x.xctest"], environment: ["WORKSHOP_MODULES": value],
          currentDirectory: layout.root, sourceFile: source))
    }
    #expect(Self.folder(search("mine")) == "\(layout.root)/mine")
    #expect(
      Self.folder(search("clone/.build/debug")) == "\(layout.root)/clone/.build/debug/Modules")
    let wrong = search("empty")
    #expect(Self.folder(wrong) == nil)
    #expect(wrong.explanation?.hasPrefix("No built modules: WORKSHOP_MODULES=empty names") == true)
    #expect(
      wrong.explanation?.contains(
        "looked in `\(layout.root)/empty/Modules` (SwiftPM's native build system) and "
          + "`\(layout.root)/empty` itself") == true, "\(wrong.explanation ?? "")")
  }

  @Test("No modules: the first check says why, once; the others are known issues, not run")
  func reportedOnce() {
    let report = MissingModulesReport()
    let check = ExamTests.step.check("probe Fake: nothing to compile against", .failsOnStarter)
    var first = ""
    withKnownIssue {
      first = report.report(
        check, label: "yours · Fake", explanation: "Why, and the fix.",
        sourceLocation: #_sourceLocation)
    } matching: { issue in
      ExamTests.comment(of: issue) == "Check: \(check.name)\nWhy, and the fix."
    }
    #expect(first == "[StepX] ✘ yours · Fake — \(check.name)")
    let second = report.report(
      check, label: "solution · Fake", explanation: "Why, and the fix.",
      sourceLocation: #_sourceLocation)
    #expect(second == "[StepX] – solution · Fake — \(check.name) (not run: no built modules)")
  }
}
