import Foundation
import ManagedObjectCore

// Checks about what a step's code keeps and how it is written, for lessons the runtime cannot
// observe by running it.

/// The stored properties of `instance` that hold a managed object or a context (directly or in
/// an optional), as `name: Type`. Such state ties the instance to one context's queue.
public func storedContextBoundState(of instance: Any) -> [String] {
  var found: [String] = []
  var mirror: Mirror? = Mirror(reflecting: instance)
  while let current = mirror {
    for child in current.children {
      var value = child.value
      let valueMirror = Mirror(reflecting: value)
      if valueMirror.displayStyle == .optional, let wrapped = valueMirror.children.first {
        value = wrapped.value
      }
      if value is ManagedObject || value is ManagedObjectContext {
        found.append("\(child.label ?? "?"): \(type(of: value))")
      }
    }
    mirror = current.superclassMirror
  }
  return found
}

/// One Swift source file of a step.
public struct SourceFile: Sendable {
  /// The path from the repository's root, e.g. `Steps/Step2-ObjectIDRefetch/CoreDataController.swift`.
  public let path: String
  public let text: String

  /// The lines that contain `phrase`, as `path:line: text`, ignoring `//` comments.
  public func lines(containing phrase: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
      index, line in
      let code = line.components(separatedBy: "//")[0]
      guard code.contains(phrase) else { return nil }
      return "\(path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))"
    }
  }
}

/// The sources of one side of a step: `Steps/<folder>` for yours, `Solutions/<folder>` for the
/// solution.
public func sourceFiles(of side: ExamSide, folder: String) throws -> [SourceFile] {
  let relative = "\(side == .yours ? "Steps" : "Solutions")/\(folder)"
  return try Repository.names(in: relative, ending: ".swift").map { name in
    SourceFile(path: "\(relative)/\(name)", text: try Repository.read("\(relative)/\(name)"))
  }
}

/// Every line of a step's code, on `side`, that starts an unstructured task, each with the
/// construct it holds: "`Task.detached` at path:line: text" (`Task { … }`, `Task(…)`,
/// `Task.detached`). Running cannot show such work reliably: it runs on after the code that
/// started it, usually at once, so most runs look right. `Task` counts only as a name of its own:
/// `performBackgroundTask { … }` is the container's, and no unstructured task.
public func unstructuredTasks(of side: ExamSide, folder: String) throws -> [String] {
  try sourceFiles(of: side, folder: folder).flatMap { file in
    file.lines(holding: [
      "Task.detached": "Task.detached", "Task {": "Task { … }", "Task(": "Task(…)",
    ])
  }
}

/// Every line of a step's code, on `side`, that switches the compiler's Sendable checking off,
/// each with the construct it holds: "`nonisolated(unsafe)` at path:line: text".
public func uncheckedEscapes(in files: [SourceFile]) -> [String] {
  files.flatMap { file in
    file.lines(holding: [
      "nonisolated(unsafe)": "nonisolated(unsafe)", "@unchecked": "@unchecked Sendable",
    ])
  }
}

extension SourceFile {
  /// The lines that hold one of `constructs` (the phrase searched, and the construct's name to
  /// print) as a name of its own (not the tail of a longer identifier), ignoring `//` comments:
  /// "`name` at path:line: text", one per line, the first construct found naming it.
  public func lines(holding constructs: KeyValuePairs<String, String>) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap {
      index, line in
      let code = line.components(separatedBy: "//")[0]
      guard let (_, name) = constructs.first(where: { Self.holds(code, $0.key) }) else {
        return nil
      }
      return "`\(name)` at \(path):\(index + 1): \(line.trimmingCharacters(in: .whitespaces))"
    }
  }

  /// Whether `code` holds `phrase` where no identifier character comes right before it.
  static func holds(_ code: String, _ phrase: String) -> Bool {
    var rest = code[...]
    while let found = rest.range(of: phrase) {
      let before =
        found.lowerBound == code.startIndex ? nil : code[code.index(before: found.lowerBound)]
      if !(before.map { $0.isLetter || $0.isNumber || $0 == "_" } ?? false) {
        return true
      }
      rest = code[found.upperBound...]
    }
    return false
  }
}

/// The `name` attribute of every saved `Entity`, read as dictionaries by a fresh context: it
/// works whatever the entity's isolation, and touches no object.
public func storedNames<Entity: ManagedObject>(
  of entity: Entity.Type, in container: PersistentContainer
) async throws -> [String] {
  try await container.performBackgroundTask { context in
    let request = FetchRequest<Entity>()
    request.propertiesToFetch = [.attribute("name")]
    return try context.fetchDictionaries(request).compactMap { $0["name"] as? String }
  }
}
