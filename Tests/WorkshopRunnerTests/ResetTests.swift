import Foundation
import Testing
import WorkshopSupport
import workshop

/// `reset N` on a scratch clone: it shows what will change before it asks, keeps a copy of what
/// it replaces where git does not look, and says how to get it back; no is not an error.
@Suite("Runner: reset keeps what it replaces")
struct ResetTests {
  /// A scratch git repository with the workshop's `.gitignore` and a one-step starter, committed;
  /// removed by `remove()`.
  struct Clone {
    let root: URL
    let step = Step(folder: "Step1-Unsafe")!
    static let starter = [
      "Controller.swift": "// starter controller\n", "Model.swift": "// model\n",
    ]

    init() throws {
      root = FileManager.default.temporaryDirectory
        .appendingPathComponent("workshop-reset-\(UUID().uuidString)")
      try write("Package.swift", "// a scratch workshop\n")
      try write(".gitignore", try Repository.read(".gitignore"))
      for (name, text) in Self.starter { try write("Steps/Step1-Unsafe/\(name)", text) }
      try git("init", "-q")
      try git("add", "-A")
      try git(
        "-c", "user.name=Workshop", "-c", "user.email=workshop@example.com", "commit", "-qm",
        "starter")
    }

    var workspace: Workspace { Workspace(root: root) }

    func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    func write(_ path: String, _ text: String) throws {
      try FileManager.default.createDirectory(
        at: url(path).deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url(path))
    }

    func read(_ path: String) -> String? {
      (try? Data(contentsOf: url(path))).map { String(decoding: $0, as: UTF8.self) }
    }

    @discardableResult
    func git(_ arguments: String...) throws -> Shell.Result {
      let result = try Shell.run("git", arguments, in: root)
      #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.output)")
      return result
    }

    /// The folders under `.workshop/saved`.
    func saved() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: url(".workshop/saved").path)) ?? [])
        .sorted()
    }

    /// Runs `reset 1`, answering `answer`; what it said before it asked, after, and whether it
    /// asked.
    func reset(answer: Bool, now: Date = Date()) throws -> (
      status: Int32, before: String, after: String, asked: Bool
    ) {
      var before: [String] = []
      var after: [String] = []
      var asked = false
      let status = try Reset.run(
        step, confirmed: false, in: workspace, now: now,
        ask: { _ in
          asked = true
          return answer
        },
        say: { asked ? after.append($0) : before.append($0) })
      return (status, before.joined(separator: "\n"), after.joined(separator: "\n"), asked)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
  }

  /// An edit, a staged edit, a deletion, a file added to git and an untracked one.
  static func edit(_ clone: Clone) throws {
    try clone.write("Steps/Step1-Unsafe/Controller.swift", "// my controller\n")
    try clone.git("add", "Steps/Step1-Unsafe/Controller.swift")
    try FileManager.default.removeItem(at: clone.url("Steps/Step1-Unsafe/Model.swift"))
    try clone.write("Steps/Step1-Unsafe/Added.swift", "// added\n")
    try clone.git("add", "Steps/Step1-Unsafe/Added.swift")
    try clone.write("Steps/Step1-Unsafe/Mine.swift", "// mine\n")
  }

  @Test("Yes: the starter is back, every file it replaced is kept, and one command gets it back")
  func yesKeepsACopy() throws {
    let clone = try Clone()
    defer { clone.remove() }
    try Self.edit(clone)
    let run = try clone.reset(answer: true)
    #expect(run.status == 0)
    #expect(run.asked)
    // What will change, before the question.
    for name in ["Controller.swift", "Model.swift", "Added.swift", "Mine.swift"] {
      #expect(run.before.contains("Steps/Step1-Unsafe/\(name)"), "\(name)")
    }
    // The starter, and nothing else, in the step's folder.
    #expect(try clone.git("status", "--porcelain", "--untracked-files=all").output.isEmpty)
    for (name, text) in Clone.starter {
      #expect(clone.read("Steps/Step1-Unsafe/\(name)") == text, "\(name)")
    }
    // The copy: where the output says, ignored by git, with what the attendee wrote.
    let saved = clone.saved()
    try #require(saved.count == 1)
    #expect(saved[0].hasPrefix("Step1-"))
    let folder = ".workshop/saved/\(saved[0])"
    #expect(run.after.contains(folder))
    #expect(try Shell.run("git", ["check-ignore", "-q", folder], in: clone.root).status == 0)
    #expect(clone.read("\(folder)/Steps/Step1-Unsafe/Controller.swift") == "// my controller\n")
    #expect(clone.read("\(folder)/Steps/Step1-Unsafe/Added.swift") == "// added\n")
    #expect(clone.read("\(folder)/Steps/Step1-Unsafe/Mine.swift") == "// mine\n")
    // The one command it prints brings the files back.
    let command = try #require(
      run.after.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        .first { $0.hasPrefix("cp ") })
    #expect(try Shell.run("sh", ["-c", command], in: clone.root).status == 0)
    #expect(clone.read("Steps/Step1-Unsafe/Controller.swift") == "// my controller\n")
    #expect(clone.read("Steps/Step1-Unsafe/Mine.swift") == "// mine\n")
  }

  @Test("No: nothing changes, and it is not an error")
  func noChangesNothing() throws {
    let clone = try Clone()
    defer { clone.remove() }
    try Self.edit(clone)
    let run = try clone.reset(answer: false)
    #expect(run.status == 0)
    #expect(run.after.contains("Nothing changed"))
    #expect(clone.read("Steps/Step1-Unsafe/Controller.swift") == "// my controller\n")
    #expect(clone.read("Steps/Step1-Unsafe/Mine.swift") == "// mine\n")
    #expect(clone.saved().isEmpty)
  }

  @Test("A step that is its starter already: said, no question, nothing kept")
  func nothingToReset() throws {
    let clone = try Clone()
    defer { clone.remove() }
    let run = try clone.reset(answer: true)
    #expect(run.status == 0)
    #expect(!run.asked)
    #expect(run.before.contains("is its starter already"))
    #expect(clone.saved().isEmpty)
  }

  @Test("Two resets in the same second keep two copies")
  func twoCopies() throws {
    let clone = try Clone()
    defer { clone.remove() }
    let now = Date()
    try clone.write("Steps/Step1-Unsafe/Controller.swift", "// first try\n")
    #expect(try clone.reset(answer: true, now: now).status == 0)
    try clone.write("Steps/Step1-Unsafe/Controller.swift", "// second try\n")
    #expect(try clone.reset(answer: true, now: now).status == 0)
    let saved = clone.saved()
    try #require(saved.count == 2)
    #expect(
      saved.compactMap { clone.read(".workshop/saved/\($0)/Steps/Step1-Unsafe/Controller.swift") }
        .sorted() == ["// first try\n", "// second try\n"])
  }
}

extension ResetTests {
  @Test("Only deleted files: they come back, and no copy or command is promised")
  func onlyDeletions() throws {
    let clone = try Clone()
    defer { clone.remove() }
    try FileManager.default.removeItem(at: clone.url("Steps/Step1-Unsafe/Model.swift"))
    let run = try clone.reset(answer: true)
    #expect(run.status == 0)
    #expect(clone.read("Steps/Step1-Unsafe/Model.swift") == Clone.starter["Model.swift"])
    #expect(clone.saved().isEmpty)
    #expect(!run.after.contains("cp -R"))
    #expect(!run.after.contains(".workshop/saved"))
  }
}
