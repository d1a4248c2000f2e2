import WorkshopSupport

/// The parts of Step 4's rule that a history can break, each with its lesson. The model
/// (``ExecutorSpecification``) decides which part a history broke; this says what to do.
enum ExecutorRule: String, Sendable {
  /// A job ran off its own executor's context's queue.
  case itsOwnQueue
  /// Two jobs of one executor ran at once.
  case oneAtATime
  /// A job started before one handed over earlier.
  case order
  /// A job never ran, or ran twice.
  case exactlyOnce
  /// `isIsolatingCurrentContext()` disagreed with the perform scope.
  case isolation

  var lesson: Lesson {
    switch self {
    case .itsOwnQueue:
      Step4Tests.step.lesson(
        rule: "Every job of an actor runs on its own executor's context's queue, inside that "
          + "context's perform: an app has several contexts, and a job on another one's queue "
          + "uses its context from the wrong thread.",
        hint: "Each executor hands its job to its own container's perform, and nothing it keeps "
          + "(a buffer, a queue) is shared with other executors: no static state in enqueue.",
        read: "hand-the-job-over-at-once")
    case .oneAtATime:
      Step4Tests.serialLesson
    case .order:
      Step4Tests.step.lesson(
        rule: "A serial executor runs its jobs in the order they were handed to it: a job "
          + "enqueued after another returned from enqueue starts after it.",
        hint: "Hand each job to the context's perform at once, in enqueue: the context's queue "
          + "keeps the order. A buffer of your own must be first in, first out.",
        read: "serial-means-serial")
    case .exactlyOnce:
      Step4Tests.jobsNeverRanLesson
    case .isolation:
      Step4Tests.isolationLesson
    }
  }
}

/// Where a history broke the rule: the event (nil: after the run, when jobs were still due),
/// which part, and what was observed.
struct ExecutorBreach: Sendable {
  let at: Int?
  let rule: ExecutorRule
  let observed: String
}
