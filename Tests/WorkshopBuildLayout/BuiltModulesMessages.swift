import WorkshopEnvironment

extension BuiltModules {
  /// Where each build puts the modules, as the messages say it.
  public static let whereBuildsPutThem =
    "`.build/debug/Modules` after `swift build --build-tests` with SwiftPM's native build "
    + "system; `.build/out/Products/Debug` (macOS) or `.build/out/Products/Debug-linux` (Linux) "
    + "with Swift Build, the default of Xcode 27's SwiftPM; `Build/Products/Debug` in Xcode's "
    + "DerivedData"

  /// The places ``modulesFolder(in:exists:)`` looks in `folder`, said in a sentence:
  /// "`/x/Modules` (SwiftPM's native build system) and `/x` itself (Swift Build, …)".
  public static func placesDescription(in folder: String) -> String {
    let places = places(in: folder)
    return "`\(places[0].folder)` (\(places[0].layout)) and `\(places[1].folder)` itself "
      + "(\(places[1].layout))"
  }

  /// Said once when the modules come from the source tree rather than the running binary.
  public static func fallbackNote(folder: String) -> String {
    "Compile probes: the running test binary is not inside a build folder; using the modules "
      + "of the package's own build, found from the source tree: \(folder). If that build is "
      + "old, or from another toolchain, set \(WorkshopEnvironment.modules.name) to the folder "
      + "with \(marker)."
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
      return "No built modules: \(variable)=\(override) names no folder with \(marker) (looked "
        + "in \(tried.map { BuiltModules.placesDescription(in: $0.path) }.joined(separator: "; ")))."
        + "\nFix: set \(variable) to the folder that holds \(marker) "
        + "(\(BuiltModules.whereBuildsPutThem)), or unset it."
    }
    let clone = root.map { " in the clone (\($0))" } ?? ""
    return "No built modules: compiling against the code needs the folder that holds \(marker) "
      + "(\(BuiltModules.whereBuildsPutThem)), and none was found. Looked in each of these, in "
      + "its Modules folder and in the folder itself:\n"
      + tried.map { "  - \($0)\n" }.joined()
      + "Fix: run `swift build --build-tests`\(clone), then the tests again; or set "
      + "\(variable)=<the folder with \(marker)>."
  }
}
