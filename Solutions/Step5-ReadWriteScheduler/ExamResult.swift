import ManagedObjectCore

/// The 2024 talk's running example: a student's exam result (2024 talk, slides 7 and 25–37).
nonisolated public final class ExamResult: ManagedObject {
  @Attribute public var name: String = ""
  @Attribute public var score: Int = 0
}
