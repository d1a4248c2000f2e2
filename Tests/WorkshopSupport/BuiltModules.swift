import Foundation
import WorkshopBuildLayout

extension BuiltModules {
  /// This test run's search for the modules its compile probes and drift checks compile
  /// against (``BuiltModules/search(_:exists:)`` on this process's inputs), done once; it says
  /// so when it had to fall back on the package's own `.build`.
  public static let thisRun: Search = {
    let result = search(.current, exists: { FileManager.default.fileExists(atPath: $0) })
    if case .found(let folder, let via) = result, via.isSourceTreeFallback {
      print(fallbackNote(folder: folder))
    }
    return result
  }()
}
