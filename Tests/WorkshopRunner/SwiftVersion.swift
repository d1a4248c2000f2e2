import Foundation

/// A toolchain's version, as `swift --version` prints it: `6.3.1`, `6.3`.
package struct SwiftVersion: Comparable, Sendable, CustomStringConvertible {
  package let major: Int
  package let minor: Int
  package let patch: Int

  package init(major: Int, minor: Int, patch: Int = 0) {
    self.major = major
    self.minor = minor
    self.patch = patch
  }

  /// The version in a line that says `Swift version 6.3.1 (…)`, `Apple Swift version 6.3 (…)`
  /// or, for a snapshot, `Swift version 6.3-dev (…)`.
  package init?(_ line: String) {
    guard let range = line.range(of: "Swift version ") else { return nil }
    let number = line[range.upperBound...].prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
    let parts = number.split(separator: ".").compactMap { Int($0) }
    guard parts.count >= 2 else { return nil }
    self.init(major: parts[0], minor: parts[1], patch: parts.count > 2 ? parts[2] : 0)
  }

  /// `6.3`, or `6.3.1` when the patch is not 0.
  package var description: String {
    patch == 0 ? "\(major).\(minor)" : "\(major).\(minor).\(patch)"
  }

  package static func < (lhs: SwiftVersion, rhs: SwiftVersion) -> Bool {
    (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
  }
}
