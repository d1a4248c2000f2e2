import Foundation
import Testing
import workshop

/// The runner finds the clone from its working directory, else from where it was built (Xcode
/// runs it in DerivedData), and otherwise says how to start it inside the clone.
@Suite("Runner: finding the workshop")
struct WorkspaceTests {
  /// A scratch folder with two clones, a package that is not a workshop, and a folder outside
  /// all of them; removed by `remove()`.
  struct Folders {
    let top: URL

    init() throws {
      top = FileManager.default.temporaryDirectory
        .appendingPathComponent("workshop-workspace-\(UUID().uuidString)")
      for clone in ["clone-a", "clone-b"] {
        try make("\(clone)/Steps/Step1-Unsafe")
        try make("\(clone)/Tests/WorkshopRunner")
        try write("\(clone)/Package.swift")
        try write("\(clone)/Tests/WorkshopRunner/Workspace.swift")
      }
      try make("other-package/Sources")
      try write("other-package/Package.swift")
      try make("DerivedData/Build/Products/Debug")
    }

    func url(_ path: String) -> URL { top.appendingPathComponent(path).standardizedFileURL }

    func make(_ path: String) throws {
      try FileManager.default.createDirectory(at: url(path), withIntermediateDirectories: true)
    }

    func write(_ path: String) throws {
      try Data().write(to: url(path))
    }

    func remove() { try? FileManager.default.removeItem(at: top) }
  }

  @Test("The clone around the working directory comes first, then the runner's own clone")
  func lookupOrder() throws {
    let folders = try Folders()
    defer { folders.remove() }
    let source = folders.url("clone-b/Tests/WorkshopRunner/Workspace.swift").path
    let cases: [(directory: String, root: String?, origin: Workspace.Origin?)] = [
      // `swift run workshop` in a clone, at its top or deeper: that clone, whatever built it.
      ("clone-a", "clone-a", .currentDirectory),
      ("clone-a/Steps/Step1-Unsafe", "clone-a", .currentDirectory),
      // Xcode's working directory, and a package that is not a workshop: the runner's clone.
      ("DerivedData/Build/Products/Debug", "clone-b", .sourceFile),
      ("other-package/Sources", "clone-b", .sourceFile),
    ]
    for (directory, root, origin) in cases {
      let found = Workspace.locate(currentDirectory: folders.url(directory), sourceFile: source)
      #expect(found?.workspace.root.path == root.map { folders.url($0).path }, "\(directory)")
      #expect(found?.origin == origin, "\(directory)")
    }
  }

  @Test("Neither way finds a workshop: the message says where it looked and how to start it")
  func notFound() throws {
    let folders = try Folders()
    defer { folders.remove() }
    let directory = folders.url("DerivedData/Build/Products/Debug")
    let source = folders.url("other-package/Sources/Workspace.swift").path
    #expect(Workspace.locate(currentDirectory: directory, sourceFile: source) == nil)
    let message = Workspace.notFound(currentDirectory: directory, sourceFile: source)
    for words in [
      directory.path, folders.url("other-package/Sources").path, "cd <your clone>",
      "swift run workshop",
      "Product ▸ Scheme ▸ Edit Scheme… ▸ Run ▸ Options ▸ Working Directory",
    ] {
      #expect(message.contains(words), "\(words)")
    }
  }

  @Test("The runner's own source file is inside this repository")
  func ownSourceFile() {
    let found = Workspace.locate(
      currentDirectory: URL(fileURLWithPath: "/"), sourceFile: Workspace.sourceFile)
    #expect(found?.origin == .sourceFile)
    #expect(
      found.map {
        FileManager.default.fileExists(atPath: $0.workspace.url("Tests/WorkshopRunner").path)
      } == true)
  }
}
