import Foundation

/// `workshop doctor`'s judgement, from what the tools printed: the toolchain, the platform, on a
/// Mac the selected Xcode, a build, and one compile probe. Pure, so that the tests can hand it
/// the outputs of other machines; `DoctorCommand` runs the tools.
package enum Doctor {
  /// The oldest toolchain the workshop builds with, and the Xcode that brings it.
  package static let minimum = (swift: SwiftVersion(major: 6, minor: 3), xcode: "Xcode 26.4")

  /// The platform the runner runs on.
  package enum Platform: Equatable, Sendable {
    case macOS, linux
    case other(String)

    /// This one.
    package static var current: Platform {
      #if os(macOS)
        .macOS
      #elseif os(Linux)
        .linux
      #else
        .other("this platform")
      #endif
    }
  }

  /// One line of the report: an item, what was found, and, when it is missing, the fix.
  package struct Finding: Equatable, Sendable {
    package let item: String
    package let ok: Bool
    package let detail: String
    package let fix: String?

    package init(_ item: String, ok: Bool, _ detail: String, fix: String? = nil) {
      self.item = item
      self.ok = ok
      self.detail = detail
      self.fix = ok ? nil : fix
    }

    /// `✔ Swift: 6.3.1 …`.
    package var line: String { "\(ok ? "✔" : "✘") \(item): \(detail)" }
  }

  /// How to select an Xcode, whatever its name in Applications (`Xcode-27.0.app`,
  /// `Xcode-beta.app`): the fix lines say it, as the pre-work does.
  package static let selectXcode =
    "sudo xcode-select -s /Applications/<your Xcode>.app (`ls -d /Applications/Xcode*.app` "
    + "lists them)"

  /// The toolchain: `swift --version` against the minimum, and `swiftc --version` against it
  /// (nil: the tool was not found).
  package static func toolchain(
    swift: Shell.Result?, swiftc: Shell.Result?, platform: Platform
  ) -> [Finding] {
    let install =
      platform == .macOS
      ? "Install \(minimum.xcode) or later (it brings Swift \(minimum.swift)), open it once, and "
        + "select it: \(selectXcode)"
      : "Install Swift \(minimum.swift) or later (swift.org/install) and put its usr/bin first "
        + "on the PATH."
    guard let swift, swift.status == 0, let line = versionLine(swift.output),
      let version = SwiftVersion(line)
    else {
      let seen = swift.map { "`swift --version` printed no version: \(firstLine($0.output))" }
      return [Finding("Swift", ok: false, seen ?? "no `swift` on the PATH", fix: install)]
    }
    var findings = [
      version >= minimum.swift
        ? Finding("Swift", ok: true, "\(version) (\(line)); the workshop needs \(minimum.swift)")
        : Finding(
          "Swift", ok: false,
          "\(version) (\(line)) is older than the workshop's minimum, Swift \(minimum.swift) "
            + "(\(minimum.xcode) or later)", fix: install)
    ]
    let other = swiftc.flatMap { $0.status == 0 ? versionLine($0.output) : nil }
    if other == line {
      findings.append(Finding("swiftc", ok: true, "the same toolchain as swift"))
    } else {
      findings.append(
        Finding(
          "swiftc", ok: false,
          other.map { "another toolchain than swift's: \($0)" } ?? "no `swiftc` on the PATH",
          fix: "`swift` and `swiftc` must come from one toolchain, or the compile probes read "
            + "modules another compiler built: `which -a swift swiftc` shows them; put one "
            + "toolchain's bin folder first on the PATH."))
    }
    return findings
  }

  /// The platform, and the target `swift --version` names.
  package static func platform(_ platform: Platform, swift: Shell.Result?) -> Finding {
    let target = swift.flatMap { targetLine($0.output) }
    let named = target.map { " (\($0))" } ?? ""
    switch platform {
    case .macOS where target.map { $0.contains("-apple-macos") } ?? true:
      return Finding(
        "Platform", ok: true,
        "macOS\(named). The checks build and run for My Mac only: in Xcode, run them with My "
          + "Mac as the destination, not an iOS simulator or device.")
    case .macOS:
      return Finding(
        "Platform", ok: false, "macOS, but swift builds for \(target ?? "another platform")",
        fix: "Unset SDKROOT and any --triple or --sdk in your environment: the checks build for "
          + "My Mac only.")
    case .linux:
      return Finding(
        "Platform", ok: true,
        "Linux\(named): fine for maintainers and CI; attendees use macOS with \(minimum.xcode) "
          + "or later.")
    case .other(let name):
      return Finding(
        "Platform", ok: false, "\(name): the workshop runs on macOS, and on Linux for CI",
        fix: "Use a Mac with \(minimum.xcode) or later.")
    }
  }

  /// On a Mac: the developer folder `xcode-select -p` prints, and whether `xcrun swift` (the
  /// selected Xcode's, which the compile probes use) is the `swift` on the PATH. `swiftcOverride`
  /// is `WORKSHOP_SWIFTC`, which points the probes elsewhere.
  package static func xcode(
    select: Shell.Result?, xcrunSwift: Shell.Result?, pathSwift: Shell.Result?,
    swiftcOverride: String?
  ) -> [Finding] {
    let choose = selectXcode
    guard let select, select.status == 0, let folder = lines(select.output).first else {
      return [
        Finding(
          "Xcode", ok: false, "`xcode-select -p` names no developer folder",
          fix: "Install \(minimum.xcode) or later, open it once, then: \(choose)")
      ]
    }
    guard !folder.contains("CommandLineTools") else {
      return [
        Finding(
          "Xcode", ok: false,
          "xcode-select points to the Command Line Tools (\(folder)), which have no XCTest, and "
            + "older ones no Swift Testing: `swift test` cannot run the checks there",
          fix: "Select Xcode (\(minimum.xcode) or later): \(choose)")
      ]
    }
    var findings = [Finding("Xcode", ok: true, folder)]
    let xcode = xcrunSwift.flatMap { $0.status == 0 ? versionLine($0.output) : nil }
    let path = pathSwift.flatMap { $0.status == 0 ? versionLine($0.output) : nil }
    if let xcode, let path, xcode != path {
      let detail = "the swift on the PATH (\(path)) is not the selected Xcode's (\(xcode))"
      if let swiftcOverride {
        findings.append(
          Finding("xcrun swift", ok: true, "\(detail); the compile probes use \(swiftcOverride)"))
      } else {
        findings.append(
          Finding(
            "xcrun swift", ok: false, detail,
            fix: "The compile probes use the selected Xcode's compiler, which cannot read "
              + "modules another one built. Put Xcode's first on the PATH (remove the other "
              + "toolchain from it), or select the Xcode it comes from (\(choose)), or set "
              + "WORKSHOP_SWIFTC=$(which swiftc) for the probes."))
      }
    } else if xcode == nil {
      findings.append(
        Finding(
          "xcrun swift", ok: false, "`xcrun swift --version` printed no version",
          fix: "Open Xcode once to finish its setup, or: \(choose)"))
    } else {
      findings.append(Finding("xcrun swift", ok: true, "the selected Xcode's swift is on the PATH"))
    }
    return findings
  }

  /// `swift build --build-tests`: built, or the compiler's first error line.
  package static func build(_ result: Shell.Result, root: String) -> Finding {
    let command = "swift build --build-tests"
    guard result.status != 0 else { return Finding("Build", ok: true, "\(command) succeeded") }
    let failure = BuildFailure(output: result.output, root: root)
    let first =
      failure.diagnostics.first.map { "\($0.location): error: \($0.message)" }
      ?? failure.otherErrors.first
      ?? lines(result.output).last ?? "no output"
    var fix =
      "Fix that error; on an untouched clone, `git status` shows what changed, and "
      + "`git checkout -- <path>` restores it."
    if let step = failure.brokenSteps.first {
      fix =
        "Step \(step.number) does not compile: `swift run workshop check \(step.number)` shows "
        + "the errors; `swift run workshop reset \(step.number)` puts the starter back (your "
        + "changes there are lost)."
    } else if first.contains("Swift tools version") {
      fix =
        "The toolchain is too old for the package: the workshop needs Swift \(minimum.swift) "
        + "(\(minimum.xcode) or later)."
    }
    return Finding("Build", ok: false, "\(command) failed: \(first)", fix: fix)
  }

  /// The compile probe: `swiftc -emit-sil` of a file that imports `ManagedObjectCore`, against
  /// the built modules in `modules` (nil: not tried, because the build failed).
  package static func probe(
    _ result: Shell.Result?, compiler: String, modules: String? = nil
  ) -> Finding {
    guard let result else {
      return Finding(
        "Compile probe", ok: false, "not tried: it needs the build",
        fix: "Fix the build first.")
    }
    guard result.status != 0 else {
      return Finding(
        "Compile probe", ok: true,
        "\(compiler) compiled a file that imports ManagedObjectCore"
          + (modules.map { " from \($0)" } ?? "") + ", as the steps' probes do")
    }
    var error = lines(result.output).first { $0.contains("error:") } ?? firstLine(result.output)
    // The probe's file is in a scratch folder that is gone by now: its name says enough.
    if error.hasPrefix("/"), let colon = error.range(of: ".swift:") {
      let path = error[..<colon.lowerBound]
      error = String(path.split(separator: "/").last ?? path) + error[colon.lowerBound...]
    }
    return Finding(
      "Compile probe", ok: false, "\(compiler) failed: \(error)",
      fix: "The steps' compile probes will fail the same way. They use WORKSHOP_SWIFTC, else "
        + "`xcrun --find swiftc` on a Mac, else the swiftc on the PATH: set WORKSHOP_SWIFTC to the "
        + "swiftc of the toolchain that ran `swift build` (the compiler must be the one that "
        + "built the modules).")
  }

  /// The closing lines: `READY`, or each missing thing with its fix.
  package static func verdict(_ findings: [Finding]) -> String {
    let missing = findings.filter { !$0.ok }
    guard !missing.isEmpty else { return "READY" }
    var text = ["NOT READY: \(missing.count) thing\(missing.count == 1 ? "" : "s") to fix."]
    for finding in missing {
      text += ["", finding.line, "  Fix: \(finding.fix ?? "see above.")"]
    }
    return text.joined(separator: "\n")
  }

  /// 0 when every finding is fine, else 1.
  package static func status(_ findings: [Finding]) -> Int32 {
    findings.allSatisfy(\.ok) ? 0 : 1
  }

  /// `Swift version 6.3.1 (swift-6.3.1-RELEASE)`, `Apple Swift version 6.3 (swiftlang-…)`:
  /// the version's line, without the driver's version that Xcode's prints before it.
  package static func versionLine(_ output: String) -> String? {
    for line in lines(output) {
      guard let range = line.range(of: "Swift version ") else { continue }
      let apple = line[..<range.lowerBound].hasSuffix("Apple ")
      let start = apple ? line.index(range.lowerBound, offsetBy: -6) : range.lowerBound
      return String(line[start...])
    }
    return nil
  }

  /// `x86_64-unknown-linux-gnu`, from the `Target:` line.
  package static func targetLine(_ output: String) -> String? {
    lines(output).first { $0.hasPrefix("Target: ") }.map { String($0.dropFirst(8)) }
  }

  private static func lines(_ output: String) -> [String] {
    output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
  }

  private static func firstLine(_ output: String) -> String {
    lines(output).first ?? "nothing"
  }
}
