import Foundation
import WorkshopEnvironment
import WorkshopSupport

/// Where `swift-synthesize-interface` is, found the way the toolchain's own tools are found.
///
/// The drift checks read each step module's public API with it. Every swift.org toolchain ships
/// it next to `swiftc` (swiftlang/swift#76872, "a new driver tool/mode to print the synthesized
/// Swift interface for a module"), so CI on Linux always has it. On a Mac, Xcode finds its tools
/// with `xcrun --find`; swift.org's blog runs this one as `xcrun swift-synthesize-interface` with
/// Xcode ("Improving the usability of C libraries in Swift", January 2026), and nothing found
/// lists Xcode 27's toolchain contents. So a Mac without it skips the comparison, saying why and
/// how to run it, instead of failing the verify run.
enum InterfaceTool {
  static let name = "swift-synthesize-interface"

  /// The outcome of one lookup.
  enum Lookup: Sendable, Equatable {
    case found(URL)
    /// Where it was looked for and not found, and how to make it found.
    case missing(String)

    var tool: URL? {
      if case .found(let tool) = self { tool } else { nil }
    }
  }

  /// The lookup for this test run, done once.
  static let thisRun = Task {
    await lookUp(override: WorkshopEnvironment.value(WorkshopEnvironment.synthesizeInterfaceDir))
  }

  /// `override` (the folder `WORKSHOP_SYNTHESIZE_INTERFACE_DIR` names) if given; else next to
  /// `WORKSHOP_SWIFTC`; else, on macOS, `xcrun --find`; else next to the `swiftc` the compile
  /// probes use. The tool must come from the compiler that built the modules: a binary module
  /// is read only by the compiler version that wrote it.
  static func lookUp(override: String?) async -> Lookup {
    if let override {
      return look(
        in: URL(fileURLWithPath: override, isDirectory: true),
        where: "in \(override) (WORKSHOP_SYNTHESIZE_INTERFACE_DIR)")
    }
    #if os(macOS)
      if WorkshopEnvironment.value(WorkshopEnvironment.swiftc) == nil {
        let xcrun = try? await Toolchain.run(
          URL(fileURLWithPath: "/usr/bin/xcrun"), ["--find", name])
        let path = xcrun?.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if xcrun?.status == 0, FileManager.default.isExecutableFile(atPath: path) {
          return .found(URL(fileURLWithPath: path))
        }
        return .missing(
          explain(where: "by `xcrun --find \(name)` (the selected Xcode's toolchain)"))
      }
    #endif
    guard let swiftc = try? Toolchain.swiftc() else {
      return .missing(explain(where: "anywhere: no swiftc was found to look beside"))
    }
    let folder = swiftc.resolvingSymlinksInPath().deletingLastPathComponent()
    return look(in: folder, where: "next to swiftc, in \(folder.path)")
  }

  private static func look(in folder: URL, where place: String) -> Lookup {
    let tool = folder.appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: tool.path)
      ? .found(tool) : .missing(explain(where: place))
  }

  private static func explain(where place: String) -> String {
    """
    \(name) was not found \(place). The public-API comparison of each starter with its \
    solution is skipped on this machine; CI runs it on Linux, where every swift.org toolchain \
    has the tool. To run it here, set WORKSHOP_SYNTHESIZE_INTERFACE_DIR to the folder that \
    holds \(name) from the toolchain that built the package (its usr/bin), or run the whole \
    command with a toolchain that has it (on macOS, a swift.org toolchain selected with \
    TOOLCHAINS=<its bundle identifier>).
    """
  }
}
