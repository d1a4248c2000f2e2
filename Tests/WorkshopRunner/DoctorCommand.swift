import Foundation
import WorkshopBuildLayout
import WorkshopEnvironment

/// `workshop doctor`: runs the tools `Doctor` judges, prints a line per item as it goes, then
/// `READY` or what to fix. A build that is up to date takes seconds, so CI runs it too.
enum DoctorCommand {
  static func run(in workspace: Workspace) -> Int32 {
    let root = workspace.root
    let platform = Doctor.Platform.current
    var findings: [Doctor.Finding] = []
    func report(_ new: [Doctor.Finding], since start: Date? = nil) {
      let time = start.map { " (\(Checks.seconds(since: $0)))" } ?? ""
      for finding in new { Console.say(finding.line + time) }
      findings += new
    }
    Console.say("Checking this machine for the workshop (\(root.path))\n")
    let swift = capture("swift", ["--version"], in: root)
    report(
      Doctor.toolchain(
        swift: swift, swiftc: capture("swiftc", ["--version"], in: root), platform: platform))
    report([Doctor.platform(platform, swift: swift)])
    if platform == .macOS {
      report(
        Doctor.xcode(
          select: capture("xcode-select", ["-p"], in: root),
          xcrunSwift: capture("xcrun", ["swift", "--version"], in: root), pathSwift: swift,
          swiftcOverride: WorkshopEnvironment.value(WorkshopEnvironment.swiftc)))
    }
    var start = Date()
    let build = progress("Building (swift build --build-tests)… ") {
      capture("swift", ["build", "--build-tests"], in: root)
        ?? Shell.Result(status: 127, output: "error: no `swift` on the PATH")
    }
    report([Doctor.build(build, root: root.path)], since: start)
    start = Date()
    let probe = build.status == 0 ? runProbe(in: root) : Doctor.probe(nil, compiler: "swiftc")
    report([probe], since: build.status == 0 ? start : nil)
    Console.say("\n" + Doctor.verdict(findings))
    return Doctor.status(findings)
  }

  /// What `name` printed and how it ended; nil when it is not on the `PATH` or did not start.
  static func capture(_ name: String, _ arguments: [String], in directory: URL) -> Shell.Result? {
    try? Shell.run(name, arguments, in: directory)
  }

  /// `work()`, with `label` shown on a terminal while it runs, then erased.
  static func progress<T>(_ label: String, _ work: () -> T) -> T {
    if Console.isTerminal { Console.say(label, terminator: "") }
    let result = work()
    if Console.isTerminal { Console.say("\r\u{1B}[2K", terminator: "") }
    return result
  }

  /// The compile probe: the compiler the steps' probes use compiles a file that imports
  /// `ManagedObjectCore` from the build's modules, found as the probes find them.
  static func runProbe(in root: URL) -> Doctor.Finding {
    guard let compiler = probeCompiler(in: root) else {
      return Doctor.probe(
        Shell.Result(status: 127, output: "error: no swiftc found"), compiler: "swiftc")
    }
    // The same `swift` that built asks where: under Swift Build (Xcode 27's default) it names
    // `.build/out/Products/Debug`, natively `.build/<triple>/debug`.
    guard let bin = capture("swift", ["build", "--show-bin-path"], in: root), bin.status == 0
    else {
      return Doctor.probe(
        Shell.Result(status: 1, output: "error: no build folder"), compiler: compiler.path)
    }
    let modules: URL
    switch Doctor.modules(
      buildFolder: bin.output.trimmingCharacters(in: .whitespacesAndNewlines),
      environment: ProcessInfo.processInfo.environment, currentDirectory: root.path,
      exists: { FileManager.default.fileExists(atPath: $0) })
    {
    case .missing(let finding): return finding
    case .found(let folder): modules = URL(fileURLWithPath: folder, isDirectory: true)
    }
    // A scratch folder for the file and for TMPDIR: the driver leaves a folder there each run.
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("workshop-doctor-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let file = scratch.appendingPathComponent("DoctorProbe.swift")
    do {
      try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
      try Data(probeSource.utf8).write(to: file)
    } catch {
      return Doctor.probe(
        Shell.Result(status: 1, output: "error: \(error)"), compiler: compiler.path)
    }
    var environment = ProcessInfo.processInfo.environment
    environment["TMPDIR"] = scratch.path
    // The arguments the steps' probes compile with (WorkshopSupport's ProbeRunner).
    let arguments = [
      "-emit-sil", "-o", "/dev/null", "-swift-version", "6", "-parse-as-library",
      "-module-name", "DoctorProbe", "-I", modules.path, file.path,
    ]
    let result = try? Shell.run(
      executable: compiler, arguments, in: root, environment: environment)
    return Doctor.probe(
      result ?? Shell.Result(status: 127, output: "error: it did not start"),
      compiler: compiler.path, modules: modules.path)
  }

  /// The compiler the steps' probes use (WorkshopSupport's `Toolchain.swiftc()`):
  /// `WORKSHOP_SWIFTC`, else `xcrun --find swiftc` on a Mac, else `swiftc` on the `PATH`.
  static func probeCompiler(in root: URL) -> URL? {
    if let explicit = WorkshopEnvironment.value(WorkshopEnvironment.swiftc) {
      return URL(fileURLWithPath: explicit)
    }
    if Doctor.Platform.current == .macOS,
      let found = capture("xcrun", ["--find", "swiftc"], in: root), found.status == 0
    {
      let path = found.output.trimmingCharacters(in: .whitespacesAndNewlines)
      if !path.isEmpty { return URL(fileURLWithPath: path) }
    }
    return try? Shell.find("swiftc")
  }

  /// A file as small as a probe can be that still asks what the probes ask: a module of the
  /// build, imported, and Swift 6's checks of what crosses into another task.
  static let probeSource = """
    // The doctor's compile probe: the steps' compile probes do this, with more to check.
    import ManagedObjectCore

    func reachesAnotherTask(_ id: ManagedObjectID) async -> ManagedObjectID {
      await Task.detached { id }.value
    }

    """
}
