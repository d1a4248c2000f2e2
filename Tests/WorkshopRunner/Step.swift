/// A step of the workshop, found from its folder `Steps/Step<N>-<Name>/`.
package struct Step: Equatable, Sendable {
  package let number: Int
  /// The folder's name, e.g. `Step1-UnsafeController`.
  package let folder: String

  /// A step folder's name, or nil for any other folder (such as `Core`).
  package init?(folder: String) {
    guard folder.hasPrefix("Step"), let dash = folder.firstIndex(of: "-") else { return nil }
    let digits = folder[folder.index(folder.startIndex, offsetBy: 4)..<dash]
    guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let number = Int(digits),
      folder.index(after: dash) < folder.endIndex
    else { return nil }
    self.number = number
    self.folder = folder
  }

  /// The steps among the names of a folder's entries, in order.
  package static func all(in names: [String]) -> [Step] {
    names.compactMap(Step.init(folder:)).sorted { $0.number < $1.number }
  }

  /// What the checks print in brackets and what `--filter` matches: `Step1`.
  package var name: String { "Step\(number)" }
  /// The part of the folder's name after the number: `UnsafeController`.
  package var title: String { String(folder[folder.index(after: folder.firstIndex(of: "-")!)...]) }
  /// The starter the attendee edits.
  package var starter: String { "Steps/\(folder)" }
  /// The reference solution.
  package var solution: String { "Solutions/\(folder)" }
  /// The folder of the step's hints, a file a level.
  package var hints: String { "\(starter)/Hints" }
  /// The `swift test --filter` pattern that selects this step's checks and nothing else: its
  /// test target's name, so that `Step1` does not also select a `Step10`.
  package var filter: String { "\(name)Tests" }
}
