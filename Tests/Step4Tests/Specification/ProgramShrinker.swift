/// A program that broke the rule, with its history: what Step 4's checks shrink
/// (``Shrinking/shrink(_:failing:budget:stillFails:)``) and print.
enum ProgramShrinker {
  struct Failing: Sendable {
    let steps: [ProgramStep]
    let breach: ExecutorBreach
    let history: [ExecutorEvent]
  }
}
