import Dispatch
import Foundation
import Testing
import WorkshopEnvironment
import WorkshopSupport

/// Issue 24, item 2: random programs of legal operations over two or three contexts and a store,
/// checked after every step against `ReferenceModel`. Programs run in a child process, so that a
/// core that stops the process fails this test with the seed instead of ending the run; a failure
/// is shrunk (each candidate in a child too) and printed as Swift-like lines.
///
/// `WORKSHOP_MODEL_SECONDS` sets the budget (about 1 s by default), `WORKSHOP_MODEL_SEED` the first
/// seed (1 by default, so the verify run tries the same programs every time).
@Suite("Model-based random programs")
struct ModelBasedTests {
  static let programLength = 30

  @Test("random programs agree with the reference model")
  func randomPrograms() async throws {
    let seconds =
      WorkshopEnvironment.value(WorkshopEnvironment.modelSeconds).flatMap(Double.init) ?? 1
    let firstSeed =
      WorkshopEnvironment.value(WorkshopEnvironment.modelSeed).flatMap(UInt64.init) ?? 1
    let log = ChildLog()
    defer { log.remove() }
    await withExitTestOffThePool {
      await #expect(processExitsWith: .success, "the programs must not end the process") {
        [seconds = seconds as Double, firstSeed = firstSeed as UInt64, path = log.path as String] in
        let log = ChildLog(path: path)
        await Self.runPrograms(seconds: seconds, firstSeed: firstSeed, log: log)
      }
    }
    let lines = log.lines
    if let summary = lines.last(where: { $0.hasPrefix("ran ") }) {
      print("model-based: \(summary)")
    }
    guard let last = lines.last else {
      Issue.record("The child wrote nothing to \(log.path)")
      return
    }
    guard !last.hasPrefix("ran ") else { return }
    guard
      let seed = lines.last(where: { $0.hasPrefix("seed ") }).flatMap({ UInt64($0.dropFirst(5)) })
    else {
      Issue.record("The child ended before it ran a program: \(lines)")
      return
    }
    var generator = ProgramGenerator(seed: seed)
    let program = generator.program(length: Self.programLength)
    let shrunk = await Shrinker { await Self.failure(of: $0) != nil }.shrink(program)
    let failure = await Self.failure(of: shrunk) ?? "(the shrunk program passed when run again)"
    Issue.record(
      """
      Seed \(seed) disagrees with the reference model (WORKSHOP_MODEL_SEED=\(seed) runs it \
      first). The shortest program that still fails:
      \(shrunk)
      What failed:
      \(failure)
      """)
  }

  /// In the child: programs from `firstSeed` on until `seconds` have passed, each seed logged
  /// before it runs; stops at the first that disagrees, logging why. A watchdog ends a hung run.
  static func runPrograms(seconds: Double, firstSeed: UInt64, log: ChildLog) async {
    DispatchQueue.global().asyncAfter(deadline: .now() + seconds + 60) {
      log.append("a program hung")
      exit(2)
    }
    let clock = ContinuousClock()
    let start = clock.now
    var (seed, programs, steps) = (firstSeed, 0, 0)
    repeat {
      log.append("seed \(seed)")
      var generator = ProgramGenerator(seed: seed)
      let program = generator.program(length: programLength)
      if let failure = await program.run() {
        log.append("\(failure)")
        return
      }
      (seed, programs, steps) = (seed + 1, programs + 1, steps + program.operations.count)
    } while clock.now - start < .seconds(seconds)
    log.append(
      "ran \(programs) programs, \(steps) steps, seeds \(firstSeed)...\(seed - 1) "
        + "in \(clock.now - start)")
  }

  /// The exit code of a child that ran its program to the end, whatever the program found.
  static let ranToTheEnd: CInt = 3

  /// Runs `program` in a child process: nil when it passes, else what failed (the model's
  /// disagreement, or that the process ended, with what it wrote to standard error). The child
  /// ends with `ranToTheEnd`, so that the exit test expects a failure exit either way and hands
  /// back the child's standard error even when a crash ended it.
  static func failure(of program: Program) async -> String? {
    let log = ChildLog()
    defer { log.remove() }
    let result = await withExitTestOffThePool {
      await #expect(
        processExitsWith: .failure, observing: [\.standardErrorContent]
      ) { [program = program as Program, path = log.path as String] in
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { exit(2) }
        if let failure = await program.run() { ChildLog(path: path).append("\(failure)") }
        exit(ModelBasedTests.ranToTheEnd)
      }
    }
    guard let result else { return "the child process could not run" }
    if result.exitStatus == .exitCode(ranToTheEnd) {
      let lines = log.lines
      return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }
    let said = String(decoding: result.standardErrorContent, as: UTF8.self)
      .split(separator: "\n").filter { !$0.hasPrefix("*** ") }.prefix(4)
    return "the process ended (\(result.exitStatus)):\n  " + said.joined(separator: "\n  ")
  }
}

/// A file a child process appends lines to, read by its parent: it survives the child's crash.
struct ChildLog: Sendable {
  let path: String

  init(path: String = NSTemporaryDirectory() + "model-based-\(UUID().uuidString).log") {
    self.path = path
    _ = FileManager.default.createFile(atPath: path, contents: nil)
  }

  func append(_ line: String) {
    guard let handle = FileHandle(forWritingAtPath: path) else { return }
    handle.seekToEndOfFile()
    handle.write(Data((line + "\n").utf8))
    try? handle.close()
  }

  var lines: [String] {
    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").map(String.init)
  }

  func remove() { try? FileManager.default.removeItem(atPath: path) }
}
