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
            + "update(_:): the method is `throws` for that.", read: "deleted-objects"))
    }
  }
}
