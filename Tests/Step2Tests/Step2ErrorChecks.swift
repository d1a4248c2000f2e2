import ManagedObjectCore
import Testing
import WorkshopSupport

/// Errors that must reach the caller, even those the store cannot be made to raise on demand.
extension Step2Tests {
  static let swallowedErrorCheck = step.check(
    "update(_:) lets every error through: no try?, try! or empty catch in the source",
    .passesOnStarter)

  /// update(_:) makes its own context and sets a merge policy, so no check can make its save
  /// fail on demand: a `try? moc.save()` would pass every run. The source shows it.
  @Test(
    "update(_:) lets every error through: no try?, try! or empty catch in the source",
    arguments: Subject.all)
  func noErrorIsSwallowed(_ subject: Subject) async {
    await exam(subject.side, Self.swallowedErrorCheck, subject: subject.testDescription) {
      let swallowed = try sourceFiles(of: subject.side, folder: "Step2-ObjectIDRefetch")
        .flatMap { file in
          ["try?", "try!", "catch {}", "catch { }"].flatMap { file.lines(containing: $0) }
        }
      expect(
        swallowed.isEmpty,
        observed: "errors swallowed in the source:\n  " + swallowed.joined(separator: "\n  "),
        lesson: Self.step.lesson(
          rule: "A save or a refetch that fails is an error the caller must hear about: `try?` "
            + "turns it into silent success, `try!` into a crash, an empty `catch` into nothing.",
          hint: "Write `try` and let the error propagate out of `moc.perform` and out of "
            + "update(_:): the method is `throws` for that.", read: "pitfalls"))
    }
  }
}

/// Calls before `configure(name:)`: there is no ID yet, and saying so is the method's job.
extension Step2Tests {
  static let notConfiguredCheck = step.check(
    "update(_:) and storedName() before configure(name:) throw NotConfiguredError",
    .passesOnStarter)

  @Test(
    "update(_:) and storedName() before configure(name:) throw NotConfiguredError",
    arguments: Subject.all)
  func beforeConfigureThrows(_ subject: Subject) async {
    await exam(subject.side, Self.notConfiguredCheck, subject: subject.testDescription) {
      try await Self.inChildProcess(.notConfigured, subject)
    }
  }

  static func beforeConfigure(_ subject: Subject) async throws {
    let controller = subject.make(PersistentContainer(name: "step2-not-configured"))
    var outcomes: [String] = []
    do {
      try await controller.update("early")
      outcomes.append("update(_:) returned normally")
    } catch {
      if !isNotConfigured(error) { outcomes.append("update(_:) threw \(error)") }
    }
    do {
      let name = try await controller.storedName()
      outcomes.append("storedName() returned \"\(name)\"")
    } catch {
      if !isNotConfigured(error) { outcomes.append("storedName() threw \(error)") }
    }
    expect(
      outcomes.isEmpty,
      observed: "before configure(name:), " + outcomes.joined(separator: "; "),
      lesson: step.lesson(
        rule: "Before configure(name:) there is no entity to update or read: that is an error "
          + "the caller must hear (NotConfiguredError), not an update that silently did nothing.",
        hint: "Unwrap the kept ID with `guard let id = entityID else { throw "
          + "NotConfiguredError() }`, at the top of each method, before any context is made.",
        read: "pitfalls"))
  }

  /// Whether `error` is a side's NotConfiguredError (each side declares its own).
  static func isNotConfigured(_ error: any Error) -> Bool {
    String(describing: type(of: error)) == "NotConfiguredError"
  }
}
