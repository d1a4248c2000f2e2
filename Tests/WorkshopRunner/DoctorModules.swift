import WorkshopBuildLayout
import WorkshopEnvironment

extension Doctor {
  /// Where the compile probe finds the build's modules, or why it cannot.
  package enum Modules: Equatable, Sendable {
    /// The folder `swiftc -I` takes.
    case found(String)
    /// Where it looked, and the fix.
    case missing(Finding)
  }

  /// The modules the steps' compile probes would compile against, for the build in
  /// `buildFolder` (what `swift build --show-bin-path` printed), found by the search the probes
  /// use (`BuiltModules`): `WORKSHOP_MODULES` when it is set, else the build folder's `Modules`
  /// folder (SwiftPM's native build system) or the folder itself (Swift Build, Xcode).
  package static func modules(
    buildFolder: String, environment: [String: String], currentDirectory: String,
    exists: (String) -> Bool
  ) -> Modules {
    let search = BuiltModules.search(
      buildFolder: buildFolder, environment: environment, currentDirectory: currentDirectory,
      exists: exists)
    switch search {
    case .found(let folder, _):
      return .found(folder)
    case .missing(let tried, _, let override):
      return .missing(modulesMissing(looked: tried.map(\.path), override: override))
    }
  }

  /// No modules in any of the folders `looked` (each: its `Modules` folder and itself).
  static func modulesMissing(looked folders: [String], override: String?) -> Finding {
    let marker = BuiltModules.marker
    let variable = WorkshopEnvironment.modules.name
    let looked = folders.map(BuiltModules.placesDescription(in:)).joined(separator: "; ")
    if let override {
      return Finding(
        "Compile probe", ok: false,
        "\(variable)=\(override) names no folder with \(marker): looked in \(looked)",
        fix: "Unset \(variable): the steps' compile probes, and this check, then use the "
          + "modules of the build. Or set it to the folder that holds \(marker) "
          + "(\(BuiltModules.whereBuildsPutThem)).")
    }
    return Finding(
      "Compile probe", ok: false,
      "no \(marker) in the build folder that `swift build --show-bin-path` names: looked in "
        + looked,
      fix: "The build succeeded, but put its modules where the workshop does not look, so the "
        + "steps' compile probes will not find them either. `find .build -name \(marker)` "
        + "shows where they are: set \(variable) to the folder that holds it (the probes read "
        + "it too), and tell the workshop's maintainers which Swift and build system did this.")
  }
}
