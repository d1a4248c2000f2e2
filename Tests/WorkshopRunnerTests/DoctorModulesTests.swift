import Foundation
import Testing
import WorkshopBuildLayout
import workshop

/// The doctor's compile probe finds the build's modules where the steps' probes do, in every
/// layout, from the bin path `swift build --show-bin-path` prints: on fake layouts in a
/// temporary folder (empty marker files, no build).
@Suite("Runner: the doctor finds the built modules")
struct DoctorModulesTests {
  static let marker = "ManagedObjectCore.swiftmodule"

  /// A temporary folder; removed by `remove()`.
  struct Folder {
    let root: String

    init() throws {
      root =
        FileManager.default.temporaryDirectory
        .appendingPathComponent("doctor-modules-\(UUID().uuidString)").resolvingSymlinksInPath()
        .path
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Makes the folder `path` (from the root) and returns its absolute path.
    @discardableResult
    func make(_ path: String) throws -> String {
      let full = root + "/" + path
      try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
      return full
    }

    func modules(_ bin: String, environment: [String: String] = [:]) -> Doctor.Modules {
      Doctor.modules(
        buildFolder: bin, environment: environment, currentDirectory: root,
        exists: { FileManager.default.fileExists(atPath: $0) })
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
  }

  @Test(
    "Each build's bin path: the doctor compiles against its modules",
    arguments: BuiltModules.knownLayouts.map(\.name)
  )
  func eachLayout(_ name: String) throws {
    let folder = try Folder()
    defer { folder.remove() }
    let known = try #require(BuiltModules.knownLayouts.first { $0.name == name })
    let (bin, modules) = (known.binPath, known.modules)
    try folder.make("\(modules)/\(Self.marker)")
    let binPath = try folder.make(bin)
    #expect(folder.modules(binPath) == .found("\(folder.root)/\(modules)"))
    // WORKSHOP_MODULES, relative to the clone, names the same build the same way.
    #expect(
      folder.modules("/nowhere", environment: ["WORKSHOP_MODULES": bin])
        == .found("\(folder.root)/\(modules)"))
  }

  @Test("A bin path with neither layout: NOT READY, where it looked, and the fix")
  func neither() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let bin = try folder.make(".build/out/Products/Debug-linux")
    try folder.make(".build/out/Products/Debug-linux/Modules")
    try folder.make(".build/x86_64-unknown-linux-gnu/debug/Modules/\(Self.marker)")
    guard case .missing(let finding) = folder.modules(bin) else {
      Issue.record("found modules in a bin path that has none")
      return
    }
    #expect(
      finding.line
        == "✘ Compile probe: no \(Self.marker) in the build folder that `swift build "
        + "--show-bin-path` names: looked in `\(bin)/Modules` (SwiftPM's native build system) and "
        + "`\(bin)` itself (Swift Build, the default of Xcode 27's SwiftPM; Xcode)")
    for words in ["find .build -name \(Self.marker)", "set WORKSHOP_MODULES to the folder"] {
      #expect(finding.fix?.contains(words) == true, "\(finding.fix ?? "no fix")")
    }
    #expect(Doctor.verdict([finding]).hasPrefix("NOT READY: 1 thing to fix."))
  }

  @Test("WORKSHOP_MODULES naming no modules: said, with both places, not passed over")
  func wrongOverride() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let bin = try folder.make(".build/out/Products/Debug")
    try folder.make(".build/out/Products/Debug/\(Self.marker)")
    try folder.make("empty")
    guard
      case .missing(let finding) = folder.modules(bin, environment: ["WORKSHOP_MODULES": "empty"])
    else {
      Issue.record("a wrong WORKSHOP_MODULES was passed over for the build's modules")
      return
    }
    #expect(
      finding.detail
        == "WORKSHOP_MODULES=empty names no folder with \(Self.marker): looked in "
        + "`\(folder.root)/empty/Modules` (SwiftPM's native build system) and "
        + "`\(folder.root)/empty` itself (Swift Build, the default of Xcode 27's SwiftPM; Xcode)")
    #expect(finding.fix?.hasPrefix("Unset WORKSHOP_MODULES") == true)
  }

  @Test("A probe that compiled names the modules folder it used")
  func compiledFrom() {
    let finding = Doctor.probe(
      Shell.Result(status: 0, output: ""), compiler: "/usr/bin/swiftc",
      modules: "/clone/.build/out/Products/Debug")
    #expect(
      finding.line
        == "✔ Compile probe: /usr/bin/swiftc compiled a file that imports ManagedObjectCore from "
        + "/clone/.build/out/Products/Debug, as the steps' probes do")
  }
}
