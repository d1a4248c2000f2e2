import Testing
import workshop

/// The doctor's judgement on what the tools of other machines printed.
@Suite("Runner: the doctor")
struct DoctorTests {
  /// `swift --version` as printed: this repository's Linux machine (Swift 6.3.1); Xcode 26.4's
  /// and Xcode 26.0.1's, as their users quoted them in public notes; a swift.org toolchain on a
  /// Mac (composed: Apple's prefix and the release tag, as swiftly installs it).
  enum Version {
    static let linux =
      "Swift version 6.3.1 (swift-6.3.1-RELEASE)\nTarget: x86_64-unknown-linux-gnu\n"
    static let xcode264 =
      "swift-driver version: 1.148.6 Apple Swift version 6.3 (swiftlang-6.3.0.123.5 "
      + "clang-2100.0.123.102)\nTarget: arm64-apple-macosx26.0\n"
    static let xcode2601 =
      "swift-driver version: 1.127.14.1 Apple Swift version 6.2 (swiftlang-6.2.0.19.9 "
      + "clang-1700.3.19.1)\nTarget: arm64-apple-macosx15.0\n"
    static let swiftOrgOnMac =
      "Apple Swift version 6.3.1 (swift-6.3.1-RELEASE)\nTarget: arm64-apple-macosx26.0\n"
  }

  static func ran(_ output: String, status: Int32 = 0) -> Shell.Result {
    Shell.Result(status: status, output: output)
  }

  @Test("A toolchain's version is read from Linux's, Xcode's and a snapshot's version lines")
  func readsVersions() {
    #expect(Doctor.versionLine(Version.linux) == "Swift version 6.3.1 (swift-6.3.1-RELEASE)")
    #expect(
      Doctor.versionLine(Version.xcode264)
        == "Apple Swift version 6.3 (swiftlang-6.3.0.123.5 clang-2100.0.123.102)")
    #expect(Doctor.targetLine(Version.xcode264) == "arm64-apple-macosx26.0")
    #expect(SwiftVersion("Swift version 6.3.1 (swift-6.3.1-RELEASE)")?.description == "6.3.1")
    #expect(SwiftVersion("Apple Swift version 6.2 (swiftlang-6.2.0.19.9)")?.description == "6.2")
    #expect(SwiftVersion("Swift version 6.4-dev (LLVM 1, Swift 2)")?.description == "6.4")
    #expect(SwiftVersion("Swift version six") == nil)
    #expect(SwiftVersion(major: 6, minor: 2, patch: 9) < Doctor.minimum.swift)
    #expect(SwiftVersion(major: 6, minor: 3) >= Doctor.minimum.swift)
  }

  @Test("Swift 6.3 passes, on Linux and from Xcode 26.4, and swift and swiftc agree")
  func currentToolchains() {
    for (output, platform) in [(Version.linux, .linux), (Version.xcode264, Doctor.Platform.macOS)] {
      let findings = Doctor.toolchain(
        swift: Self.ran(output), swiftc: Self.ran(output), platform: platform)
      #expect(findings.allSatisfy { $0.ok }, "\(findings)")
      #expect(findings.first?.detail.hasSuffix("the workshop needs 6.3") == true)
    }
  }

  @Test("An older toolchain is refused with the minimum and the Xcode that brings it")
  func olderToolchain() throws {
    let findings = Doctor.toolchain(
      swift: Self.ran(Version.xcode2601), swiftc: Self.ran(Version.xcode2601), platform: .macOS)
    let swift = try #require(findings.first)
    #expect(!swift.ok)
    #expect(
      swift.line
        == "✘ Swift: 6.2 (Apple Swift version 6.2 (swiftlang-6.2.0.19.9 clang-1700.3.19.1)) is "
        + "older than the workshop's minimum, Swift 6.3 (Xcode 26.4 or later)")
    #expect(swift.fix?.hasPrefix("Install Xcode 26.4 or later (it brings Swift 6.3)") == true)
    #expect(swift.fix?.contains("sudo xcode-select -s /Applications/<your Xcode>.app") == true)
    let linux = Doctor.toolchain(swift: Self.ran(Version.xcode2601), swiftc: nil, platform: .linux)
    #expect(linux.first?.fix?.hasPrefix("Install Swift 6.3 or later") == true)
    let none = Doctor.toolchain(swift: nil, swiftc: nil, platform: .linux)
    #expect(none.first?.line == "✘ Swift: no `swift` on the PATH")
  }

  @Test("swift and swiftc from two toolchains: the finding names both and how to fix the PATH")
  func swiftAndSwiftcDisagree() throws {
    let findings = Doctor.toolchain(
      swift: Self.ran(Version.xcode264), swiftc: Self.ran(Version.swiftOrgOnMac),
      platform: .macOS)
    let swiftc = try #require(findings.last)
    #expect(
      swiftc.line
        == "✘ swiftc: another toolchain than swift's: Apple Swift version 6.3.1 (swift-6.3.1-RELEASE)"
    )
    #expect(swiftc.fix?.contains("which -a swift swiftc") == true)
  }

  @Test("On a Mac: Xcode selected, or the Command Line Tools, or none; xcrun's swift vs the PATH's")
  func selectedXcode() throws {
    let xcode = Self.ran("/Applications/Xcode.app/Contents/Developer\n")
    let fine = Doctor.xcode(
      select: xcode, xcrunSwift: Self.ran(Version.xcode264),
      pathSwift: Self.ran(Version.xcode264),
      swiftcOverride: nil)
    #expect(fine.map(\.line).first == "✔ Xcode: /Applications/Xcode.app/Contents/Developer")
    #expect(fine.allSatisfy { $0.ok })

    let tools = Doctor.xcode(
      select: Self.ran("/Library/Developer/CommandLineTools\n"),
      xcrunSwift: Self.ran(Version.xcode264), pathSwift: Self.ran(Version.xcode264),
      swiftcOverride: nil)
    let commandLineTools = try #require(tools.first)
    #expect(!commandLineTools.ok)
    #expect(commandLineTools.detail.contains("Command Line Tools"))
    #expect(commandLineTools.detail.contains("no XCTest"))
    #expect(
      commandLineTools.fix == "Select Xcode (Xcode 26.4 or later): "
        + "sudo xcode-select -s /Applications/<your Xcode>.app (`ls -d /Applications/Xcode*.app` "
        + "lists them)")

    // Made up: xcode-select failing, as on a Mac with no developer folder at all.
    let nothing = Doctor.xcode(
      select: Self.ran("xcode-select: error: no developer folder\n", status: 2), xcrunSwift: nil,
      pathSwift: nil, swiftcOverride: nil)
    #expect(nothing.map(\.ok) == [false])

    // A swift.org toolchain first on the PATH, Xcode selected: the probes would use Xcode's.
    let other = Doctor.xcode(
      select: xcode, xcrunSwift: Self.ran(Version.xcode264),
      pathSwift: Self.ran(Version.swiftOrgOnMac), swiftcOverride: nil)
    #expect(other.map(\.ok) == [true, false])
    #expect(other.last?.fix?.contains("WORKSHOP_SWIFTC") == true)
    let overridden = Doctor.xcode(
      select: xcode, xcrunSwift: Self.ran(Version.xcode264),
      pathSwift: Self.ran(Version.swiftOrgOnMac), swiftcOverride: "/opt/swift/bin/swiftc")
    #expect(overridden.allSatisfy { $0.ok })
  }

  @Test("The platform: macOS builds for My Mac; Linux is for maintainers")
  func platforms() {
    let mac = Doctor.platform(.macOS, swift: Self.ran(Version.xcode264))
    #expect(mac.ok && mac.detail.contains("My Mac"))
    let linux = Doctor.platform(.linux, swift: Self.ran(Version.linux))
    #expect(linux.ok)
    #expect(linux.detail.hasPrefix("Linux (x86_64-unknown-linux-gnu): fine for maintainers"))
    let iOS = Doctor.platform(
      .macOS, swift: Self.ran("Swift version 6.3\nTarget: arm64-apple-ios26.0"))
    #expect(!iOS.ok)
    #expect(!Doctor.platform(.other("Windows"), swift: nil).ok)
  }

  @Test("A failed build shows the compiler's first error and what to do")
  func failedBuild() throws {
    let output = try Fixture.text("build-failure")
    let finding = Doctor.build(Self.ran(output, status: 1), root: Fixture.capturedRoot)
    #expect(
      finding.line
        == "✘ Build: swift build --build-tests failed: Steps/Step2-ObjectIDRefetch/"
        + "CoreDataEntity.swift:7:19: error: cannot convert value of type 'String' to specified "
        + "type 'Int'")
    #expect(finding.fix?.contains("swift run workshop reset 2") == true)
    // SwiftPM's words for a manifest newer than the toolchain (6.3.1's, with a 6.2's numbers).
    let old = Doctor.build(
      Self.ran(
        "error: 'clone': package 'clone' is using Swift tools version 6.3.0 but the installed "
          + "version is 6.2.0\n", status: 1), root: "/clone")
    #expect(
      old.detail.hasSuffix("is using Swift tools version 6.3.0 but the installed version is 6.2.0"))
    #expect(old.fix?.contains("Swift 6.3 (Xcode 26.4 or later)") == true)
    #expect(Doctor.build(Self.ran("Build complete!"), root: "/clone").ok)
  }

  @Test("The compile probe: compiled, failed with the compiler's error, or not tried")
  func probe() {
    #expect(Doctor.probe(Self.ran(""), compiler: "/usr/bin/swiftc").ok)
    // What swiftc 6.3.1 printed for the probe with no built modules to read.
    let failed = Doctor.probe(
      Self.ran(
        """
        /tmp/workshop-doctor-1/DoctorProbe.swift:1:8: error: no such module 'ManagedObjectCore'
        1 | import ManagedObjectCore
          |        `- error: no such module 'ManagedObjectCore'
        """, status: 1), compiler: "/usr/bin/swiftc")
    #expect(
      failed.line
        == "✘ Compile probe: /usr/bin/swiftc failed: DoctorProbe.swift:1:8: error: no such module "
        + "'ManagedObjectCore'")
    #expect(failed.fix?.contains("WORKSHOP_SWIFTC") == true)
    #expect(
      Doctor.probe(nil, compiler: "swiftc").line == "✘ Compile probe: not tried: it needs the build"
    )
  }

  @Test("READY and 0 when all is well; else each missing thing with its fix, and 1")
  func verdict() {
    let fine = [
      Doctor.Finding("Swift", ok: true, "6.3.1"), Doctor.Finding("Build", ok: true, "ok"),
    ]
    #expect(Doctor.verdict(fine) == "READY")
    #expect(Doctor.status(fine) == 0)
    let missing = fine + [Doctor.Finding("Xcode", ok: false, "none", fix: "Install it.")]
    #expect(
      Doctor.verdict(missing) == "NOT READY: 1 thing to fix.\n\n✘ Xcode: none\n  Fix: Install it.")
    #expect(Doctor.status(missing) == 1)
  }
}
