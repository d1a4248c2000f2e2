import Foundation

/// The tools the runner calls (`swift`, `git`), run as child processes.
package enum Shell {
  /// What a tool printed, standard output and error together in the order printed, and its
  /// exit status.
  package struct Result: Sendable {
    package let status: Int32
    package let output: String

    package init(status: Int32, output: String) {
      self.status = status
      self.output = output
    }
  }

  /// The executable `name` on the `PATH`.
  package static func find(_ name: String) throws(RunnerError) -> URL {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw RunnerError("No `\(name)` on the PATH: the runner needs it.")
  }

  /// Runs `name` (found on the `PATH`) with `arguments` in `directory`, handing each line of
  /// its output to `onLine` as it arrives, and waits for it to end.
  package static func run(
    _ name: String, _ arguments: [String], in directory: URL,
    environment: [String: String]? = nil, onLine: (String) -> Void = { _ in }
  ) throws -> Result {
    try run(
      executable: try find(name), arguments, in: directory, environment: environment,
      onLine: onLine)
  }

  /// Runs `executable` with `arguments` in `directory`, as `run(_:_:in:environment:onLine:)`.
  package static func run(
    executable: URL, _ arguments: [String], in directory: URL,
    environment: [String: String]? = nil, onLine: (String) -> Void = { _ in }
  ) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.currentDirectoryURL = directory
    if let environment { process.environment = environment }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    var output = Data()
    var pending = Data()
    // Reads until the tool and its children close the pipe, so that nothing printed is lost.
    while true {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      output.append(chunk)
      pending.append(chunk)
      while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
        onLine(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
        pending.removeSubrange(pending.startIndex...newline)
      }
    }
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
  }
}
