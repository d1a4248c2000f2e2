import Testing

/// One side of a step under test: which side it is, its module, and what the step's checks call
/// on it (`API`, a struct of closures the step's tests declare). Every step's tests had a
/// `Subject` of their own with the same first three members; this is that part, once:
///
///     struct ImporterAPI: Sendable {
///       let make: @Sendable (PersistentContainer) -> any Importer
///     }
///     typealias Subject = ExamSubject<ImporterAPI>
///
///     extension ImporterAPI: ExamAPI {
///       static var subjects: [Subject] {
///         Subject.sides("StepN", yours: ImporterAPI(make: StepN.Importer.init), solution: …)
///       }
///     }
///
///     @Test("…", arguments: Subject.all) func …(_ subject: Subject) async {
///       await exam(subject.side, Self.someCheck) { let importer = subject.make(container) … }
///     }
///
/// `subject.make` reads the API's member directly (dynamic member lookup).
@dynamicMemberLookup
public struct ExamSubject<API: Sendable>: Sendable, CustomTestStringConvertible {
  public let side: ExamSide
  /// The module the side's code is in: `StepN` or `StepNSolution`.
  public let module: String
  /// A second word for the test list when a side has several subjects ("class", "actor").
  public let variant: String?
  public let api: API

  public init(_ side: ExamSide, module: String, variant: String? = nil, api: API) {
    self.side = side
    self.module = module
    self.variant = variant
    self.api = api
  }

  public subscript<Member>(dynamicMember member: KeyPath<API, Member>) -> Member {
    api[keyPath: member]
  }

  /// How the test list names the subject: `yours`, `solution`, or `yours · actor`.
  public var testDescription: String {
    variant.map { "\(side.rawValue) · \($0)" } ?? side.rawValue
  }
}

/// What a step's checks call on one side, which also lists the step's subjects: `Subject.every`
/// and `Subject.all` come from it.
public protocol ExamAPI: Sendable {
  /// Every subject of the step, whatever `WORKSHOP_SIDE` selects: an exit test's child process
  /// looks its subject up here.
  static var subjects: [ExamSubject<Self>] { get }
}

extension ExamSubject where API: ExamAPI {
  /// Every subject of the step, on both sides.
  public static var every: [ExamSubject] { API.subjects }

  /// The subjects of the sides this run checks (`WORKSHOP_SIDE`): the arguments of every `@Test`.
  public static var all: [ExamSubject] { every.filter(\.side.isSelected) }
}

extension ExamSubject {
  /// A step's two sides, one subject each: yours in module `step`, the solution in
  /// `<step>Solution`.
  public static func sides(_ step: String, yours: API, solution: API) -> [ExamSubject] {
    [
      ExamSubject(.yours, module: step, api: yours),
      ExamSubject(.solution, module: "\(step)Solution", api: solution),
    ]
  }
}

extension Array {
  /// The first subject of `side`, for a child process that was told its side.
  public func first<API>(of side: ExamSide) -> ExamSubject<API> where Element == ExamSubject<API> {
    first { $0.side == side } ?? self[0]
  }
}
