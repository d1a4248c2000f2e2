import Foundation

/// What the runner prints, written at once (not buffered), so that progress shows while a
/// child process works.
package enum Console {
  package static func say(_ text: String = "", terminator: String = "\n") {
    FileHandle.standardOutput.write(Data((text + terminator).utf8))
  }

  package static func complain(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
  }

  /// Whether standard output is a terminal (git colours its diff for one).
  package static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

  /// The answer to a yes/no question; no, unless the user types y or yes.
  package static func confirm(_ question: String) -> Bool {
    say("\(question) [y/N] ", terminator: "")
    let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased()
    // A terminal echoes the answer and its newline; a pipe does not.
    if isatty(STDIN_FILENO) != 1 { say(answer ?? "") }
    return answer == "y" || answer == "yes"
  }
}
