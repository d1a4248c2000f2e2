import Foundation
import Testing

/// The lookup of `swift-synthesize-interface`, on folders made for the test: a machine without
/// the tool gets a skip that says where it looked and how to fix it, never a failure.
@Suite("swift-synthesize-interface is found, or its absence is explained")
struct InterfaceToolTests {
  /// A scratch folder, removed when `body` returns.
  private func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("interface-tool-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
  }

  @Test("A folder without the tool: missing, naming the folder, the variable and CI")
  func folderWithoutTheTool() async throws {
    try await withFolder { folder in
      let lookup = await InterfaceTool.lookUp(override: folder.path)
      guard case .missing(let explanation) = lookup else {
        Issue.record("found a tool in an empty folder: \(lookup)")
        return
      }
      for needed in [folder.path, "WORKSHOP_SYNTHESIZE_INTERFACE_DIR", "skipped", "CI"] {
        #expect(explanation.contains(needed), "the explanation lacks \(needed): \(explanation)")
      }
    }
  }

  @Test("A folder with the tool: found there, whatever swiftc or xcrun would say")
  func folderWithTheTool() async throws {
    try await withFolder { folder in
      let tool = folder.appendingPathComponent(InterfaceTool.name)
      #expect(FileManager.default.createFile(atPath: tool.path, contents: Data("#!/bin/sh\n".utf8)))
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
      #expect(await InterfaceTool.lookUp(override: folder.path) == .found(tool))
    }
  }

  #if !os(macOS)
    /// Off macOS, every swift.org toolchain has the tool next to `swiftc`: CI must run the
    /// comparison, never skip it.
    @Test("Without the variable, off macOS: found next to swiftc")
    func nextToSwiftc() async {
      let lookup = await InterfaceTool.lookUp(override: nil)
      guard case .found(let tool) = lookup else {
        Issue.record("the drift checks would be skipped in CI: \(lookup)")
        return
      }
      #expect(tool.lastPathComponent == InterfaceTool.name)
    }
  #endif
}
