import Testing

/// One step of the workshop as the repository lays it out: `Steps/Step4-CustomExecutor/` (the
/// starter, module `Step4`) and `Solutions/Step4-CustomExecutor/` (module `Step4Solution`). The
/// checks over every step (DocsTests, DriftTests) take their list from here.
public struct StepFolder: Sendable, Hashable, CustomTestStringConvertible {
  public let number: Int
  /// The folder's name under `Steps/` and `Solutions/`, e.g. `Step4-CustomExecutor`.
  public let folder: String

  /// A step folder's name, or nil for any other folder (such as `Core`).
  public init?(folder: String) {
    guard folder.hasPrefix("Step"), let dash = folder.firstIndex(of: "-"),
      let number = Int(folder[folder.index(folder.startIndex, offsetBy: 4)..<dash])
    else { return nil }
    self.number = number
    self.folder = folder
  }

  /// The starter's module, as attendees filter for it: `Step4`.
  public var module: String { "Step\(number)" }
  public var starter: String { "Steps/\(folder)" }
  public var solution: String { "Solutions/\(folder)" }
  public var testDescription: String { folder }

  /// The step's deck, `slides/04-custom-executor.md` (its name starts with the two-digit
  /// number), or nil when there is none.
  public var deck: String? {
    let prefix = number < 10 ? "0\(number)-" : "\(number)-"
    return ((try? Repository.names(in: "slides", ending: ".md")) ?? [])
      .first { $0.hasPrefix(prefix) }.map { "slides/\($0)" }
  }

  /// Every step, from the folders under `Steps/`, in order.
  public static let all: [StepFolder] = ((try? Repository.names(in: "Steps", ending: "")) ?? [])
    .compactMap(StepFolder.init(folder:)).sorted { $0.number < $1.number }
}
