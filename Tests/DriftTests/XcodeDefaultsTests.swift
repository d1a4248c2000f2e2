import Foundation
import Testing
import WorkshopSupport

/// New app targets in Xcode 26 build with default `MainActor` isolation (SE-0466) and
/// `NonisolatedNonsendingByDefault` (SE-0461). Attendees take the solutions into such targets,
/// so every solution must compile there too, and every compile probe must still say the same.
///
/// The package itself keeps Swift's defaults; these checks compile each solution's sources, and
/// each probe against its solution, once more with Xcode's flags. The usual catch: an entity
/// class without an annotation is inferred `@MainActor`, so a perform block on a background
/// context cannot touch its properties (`slides/00-introduction.md#xcode-26-defaults`).
@Suite(
  "Solutions and probes under Xcode 26's defaults for new app targets",
  .enabled(if: isVerifyMode, "a maintainers' gate: run with WORKSHOP_VERIFY=1"))
struct XcodeDefaultsTests {
  static let flags = [
    "-default-isolation", "MainActor", "-enable-upcoming-feature",
    "NonisolatedNonsendingByDefault",
  ]

  @Test(
    "Each solution compiles without an error or a warning under Xcode 26's defaults",
    arguments: DriftTests.Pair.all)
  func solutionCompiles(_ pair: DriftTests.Pair) async throws {
    #if compiler(>=6.2)
      let folder = Repository.url(pair.solution)
      let sources = try Repository.names(in: pair.solution, ending: ".swift")
        .map { folder.appendingPathComponent($0).path }
      let output = try await Toolchain.run(
        Toolchain.swiftc(),
        [
          "-emit-sil", "-wmo", "-o", "/dev/null", "-swift-version", "6", "-parse-as-library",
          "-module-name", "\(pair.module)Solution", "-I", Toolchain.modulesDirectory().path,
        ] + Self.flags + sources)
      let diagnostics = output.standardError.split(separator: "\n")
        .filter { $0.hasPrefix("/") && ($0.contains(": error: ") || $0.contains(": warning: ")) }
      #expect(
        output.status == 0 && diagnostics.isEmpty,
        """
        \(pair.solution) under \(Self.flags.joined(separator: " ")):
            \(diagnostics.joined(separator: "\n    "))
        Rule: code that runs inside a perform block must not be isolated to the main actor. Mark \
        entity classes and the types their blocks use `nonisolated`.
        """)
    #endif
  }

  @Test(
    "Each compile probe says the same under Xcode 26's defaults",
    arguments: DriftTests.Pair.all)
  func probesAgree(_ pair: DriftTests.Pair) async throws {
    #if compiler(>=6.2)
      let folder = "Tests/\(pair.module)Tests/Probes"
      guard FileManager.default.fileExists(atPath: Repository.url(folder).path) else { return }
      let probes = try ProbeRunner.probes(in: folder)
      let outcomes = try await ProbeRunner.run(
        probes, against: "\(pair.module)Solution", flags: Self.flags)
      for outcome in outcomes.values.sorted(by: { $0.probe.name < $1.probe.name }) {
        #expect(outcome.matches, "under Xcode 26's defaults: \(outcome.mismatch)")
      }
    #endif
  }
}
