/// One `WARNING: ThreadSanitizer: data race` report (or `Swift access race`), read from the
/// sanitizer's output: the two accesses that raced, each with its stack, the threads involved,
/// and what the memory is.
///
/// The format is compiler-rt's (`tsan_report.cpp`), the same on Linux and macOS; what differs is
/// the frames' file names (a full path from `llvm-symbolizer`, a bare file name from `atos` on a
/// Mac: not verified on a Mac), so a frame keeps the path as printed and `Frame.relativePath`
/// finds the repository's part of it.
package struct RaceReport: Equatable, Sendable {
  /// The two accesses: the one that found the race, then the earlier one it raced with.
  package let accesses: [Access]
  /// The threads the report describes (`Thread T5 (tid=…, running) created by main thread`),
  /// by name (`T5`), without their stacks.
  package let threads: [String: String]
  /// What the memory is, in the report's words, without the address: `heap block of size 48`.
  package let location: String?

  package init(accesses: [Access], threads: [String: String], location: String?) {
    self.accesses = accesses
    self.threads = threads
    self.location = location
  }

  /// One access: `Write of size 8 at 0x… by thread T5:` and its stack.
  package struct Access: Equatable, Sendable {
    /// `Write`, `Read`, `Atomic write`, … as printed.
    package let kind: String
    /// Whether it is the earlier of the two (`Previous write of size 8 …`).
    package let isPrevious: Bool
    /// In bytes; nil when not printed.
    package let size: Int?
    /// `T5`, or `main` for the main thread.
    package let thread: String
    /// The stack, innermost frame first; empty when the sanitizer had lost it
    /// (`[failed to restore the stack]`).
    package let frames: [Frame]

    package init(kind: String, isPrevious: Bool, size: Int?, thread: String, frames: [Frame]) {
      self.kind = kind
      self.isPrevious = isPrevious
      self.size = size
      self.thread = thread
      self.frames = frames
    }

    /// Whether the access writes (an atomic write too).
    package var isWrite: Bool { kind.lowercased().hasSuffix("write") }
  }

  /// A frame of a stack: `#3 Step1.CoreDataController.rename(to:) async throws -> ()
  /// /path/Steps/Step1-UnsafeController/CoreDataController.swift:41:13 (Step1Tests+0x1234)`.
  package struct Frame: Equatable, Sendable {
    /// The function as printed (mangled or not), `<null>` when unknown.
    package let function: String
    /// The source file as printed: a path, a bare file name, or nil (`<null>`).
    package let file: String?
    package let line: Int?

    package init(function: String, file: String?, line: Int?) {
      self.function = function
      self.file = file
      self.line = line
    }

    /// The file from the repository's root, when it lies in one of the repository's source
    /// folders: `Steps/Step1-UnsafeController/CoreDataController.swift`. A bare file name
    /// stays as it is.
    package var relativePath: String? {
      guard let file else { return nil }
      for folder in ["Steps/", "Solutions/", "Tests/"] {
        var search = file.startIndex..<file.endIndex
        // The last one: a clone may sit inside a folder named Tests.
        while let range = file.range(of: folder, options: .backwards, range: search) {
          if range.lowerBound == file.startIndex
            || file[file.index(before: range.lowerBound)] == "/"
          {
            return String(file[range.lowerBound...])
          }
          search = file.startIndex..<range.lowerBound
        }
      }
      return file.contains("/") ? nil : file
    }

    /// `Steps/Step1-UnsafeController/CoreDataController.swift:41`.
    package var place: String { "\(relativePath ?? file ?? "?")\(line.map { ":\($0)" } ?? "")" }
  }

  /// The reports read: plain data races, and Swift access races (two accesses to one Swift
  /// variable at once, which the compiler's exclusivity checks report to the sanitizer; one
  /// unprotected `count += 1` from two threads often gives both).
  static let kinds = ["data race", "Swift access race"]

  /// Every race report in `output`, in the order printed. Other sanitizer reports (a lock
  /// misused, a signal handler) are not races and are left out.
  package static func all(in output: String) -> [RaceReport] {
    var reports: [RaceReport] = []
    var current: [String]?
    for line in TestRunOutput.lines(of: output) {
      if line.contains("WARNING: ThreadSanitizer: ") {
        if let lines = current { reports.append(RaceReport(lines: lines)) }
        current = kinds.contains { line.contains("WARNING: ThreadSanitizer: \($0)") } ? [] : nil
      } else if line.hasPrefix("SUMMARY: ThreadSanitizer") || line.hasPrefix("==================") {
        if let lines = current, !lines.isEmpty { reports.append(RaceReport(lines: lines)) }
        current = nil
      } else {
        current?.append(line)
      }
    }
    if let lines = current, !lines.isEmpty { reports.append(RaceReport(lines: lines)) }
    return reports.filter { !$0.accesses.isEmpty }
  }

  /// A report from its lines between the warning and the summary.
  init(lines: [String]) {
    var accesses: [Access] = []
    var threads: [String: String] = [:]
    var location: String?
    // The block being read: an access, with its frames so far, or another block.
    var access: (kind: String, previous: Bool, size: Int?, thread: String)?
    var frames: [Frame] = []
    func close() {
      if let access {
        accesses.append(
          Access(
            kind: access.kind, isPrevious: access.previous, size: access.size,
            thread: access.thread, frames: frames))
      }
      access = nil
      frames = []
    }
    for raw in lines {
      let line = raw.trimmingCharacters(in: .whitespaces)
      if line.hasPrefix("#") {
        if access != nil, let frame = Self.frame(line) { frames.append(frame) }
        continue
      }
      guard !line.isEmpty else { continue }
      close()
      if let header = Self.accessHeader(line) {
        access = header
      } else if line.hasPrefix("Thread T"), let space = line.dropFirst(7).firstIndex(of: " ") {
        let name = String(line[line.index(line.startIndex, offsetBy: 7)..<space])
        var text = line
        if text.hasSuffix(" at:") { text.removeLast(4) }
        threads[name] = text
      } else if line.hasPrefix("Location is ") {
        var text = String(line.dropFirst(12))
        if let at = text.range(of: " at 0x") {
          let rest = text[at.upperBound...].drop { $0.isHexDigit }
          text = String(text[..<at.lowerBound]) + rest
        }
        if text.hasSuffix(":") { text.removeLast() }
        location = text
      }
    }
    close()
    self.accesses = accesses
    self.threads = threads
    self.location = location
  }

  /// `Write of size 8 at 0x7b0c000012a0 by thread T5 (mutexes: write M1):`, or
  /// `Previous read of size 1 at 0x… by main thread:`: its kind, whether previous, size and
  /// thread.
  static func accessHeader(_ line: String) -> (
    kind: String, previous: Bool, size: Int?, thread: String
  )? {
    guard let by = line.range(of: " by ") else { return nil }
    var head = String(line[..<by.lowerBound])
    let previous = head.hasPrefix("Previous ")
    if previous { head = String(head.dropFirst(9)) }
    let kind: String
    var size: Int?
    if let sizeRange = head.range(of: " of size ") {
      kind =
        head[..<sizeRange.lowerBound].prefix(1).uppercased()
        + head[..<sizeRange.lowerBound].dropFirst()
      size = Int(head[sizeRange.upperBound...].prefix { $0.isNumber })
    } else if head.lowercased().hasPrefix("modifying access of swift variable") {
      // A Swift access race (exclusivity): `Modifying access of Swift variable at 0x… by …`.
      kind = "Write"
    } else if head.lowercased().hasPrefix("read-only access of swift variable") {
      kind = "Read"
    } else {
      return nil
    }
    guard ["Write", "Read", "Atomic write", "Atomic read"].contains(kind) else { return nil }
    let who = line[by.upperBound...]
    let thread: String
    if who.hasPrefix("main thread") {
      thread = "main"
    } else if who.hasPrefix("thread ") {
      thread = String(who.dropFirst(7).prefix { $0 != " " && $0 != ":" })
    } else {
      thread = String(who.prefix { $0 != " " && $0 != ":" })
    }
    return (kind, previous, size, thread)
  }

  /// A frame from its line, `#0 function file:line:column (module+0xoffset)` or
  /// `#0 function <null> (module+0xoffset)`, on Linux with `(BuildId: …)` at the end.
  package static func frame(_ line: String) -> Frame? {
    guard line.hasPrefix("#"), let space = line.firstIndex(of: " ") else { return nil }
    var rest = line[line.index(after: space)...]
    // The module and offset in parentheses at the end, `(Tests.xctest+0x1f7d89)`, and on Linux
    // the binary's `(BuildId: …)` after them.
    while rest.hasSuffix(")"), let open = rest.range(of: " (", options: .backwards) {
      let group = rest[open.upperBound...]
      guard group.contains("+0x") || group.hasPrefix("BuildId:") else { break }
      rest = rest[..<open.lowerBound]
    }
    // The location is the last word: `<null>`, or a file with `:line` and maybe `:column`. A
    // path with a space in it keeps only its part after the space; the repository's part,
    // which `relativePath` reads, has none.
    guard let lastSpace = rest.lastIndex(of: " ") else {
      return Frame(function: String(rest), file: nil, line: nil)
    }
    let function = String(rest[..<lastSpace])
    let location = rest[rest.index(after: lastSpace)...]
    var parts = location.split(separator: ":", omittingEmptySubsequences: false)
    var numbers: [Int] = []
    while parts.count > 1, let number = Int(parts[parts.count - 1]) {
      numbers.insert(number, at: 0)
      parts.removeLast()
    }
    let file = parts.joined(separator: ":")
    guard file != "<null>", file.contains(".") else {
      return Frame(function: function, file: nil, line: nil)
    }
    return Frame(function: function, file: file, line: numbers.first)
  }
}
