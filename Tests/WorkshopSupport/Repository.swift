import Foundation

/// The repository this test build was made from: the folder that holds `Package.swift`, found
/// from this file's own path, so that checks can read sources, probes, slides and hints.
public enum Repository {
  public static let root: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
    {
      let parent = url.deletingLastPathComponent()
      precondition(parent.path != url.path, "no Package.swift above \(#filePath)")
      url = parent
    }
    return url
  }()

  /// The file or folder at `path`, relative to the root.
  public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

  /// The text of the file at `path`, relative to the root.
  public static func read(_ path: String) throws -> String {
    try String(contentsOf: url(path), encoding: .utf8)
  }

  /// The names in the folder at `path` that end with `suffix`, sorted.
  public static func names(in path: String, ending suffix: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: url(path).path)
      .filter { $0.hasSuffix(suffix) }.sorted()
  }

  /// Every `.swift` file under the folder at `path`, as paths from the root, sorted.
  public static func swiftFiles(under path: String) -> [String] {
    files(under: path).filter { $0.hasSuffix(".swift") }
  }

  /// Every file under the folder at `path` (or the file itself), as paths from the root, sorted.
  public static func files(under path: String) -> [String] {
    let base = url(path)
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: base.path, isDirectory: &isFolder) else {
      return []
    }
    guard isFolder.boolValue else { return [path] }
    guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
    else { return [] }
    return walker.compactMap { $0 as? URL }
      .filter { file in
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: file.path, isDirectory: &folder)
          && !folder.boolValue && file.lastPathComponent != ".DS_Store"
      }
      .map { "\(path)/\($0.path.dropFirst(base.path.count + 1))" }.sorted()
  }
}
