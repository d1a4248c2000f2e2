import WorkshopSupport

/// The parts of Step 5's rule that a history can break, each with its lesson. The model
/// (``SchedulerSpecification``) decides which part a history broke; this says what to do.
enum SchedulerRule: String, Sendable {
  /// A write ran beside another block.
  case alone
  /// Someone started while a caller that asked earlier still waited.
  case firstComeFirstServed
  /// A caller the model runs did not start, or a caller that should have returned did not.
  case progress
  /// A caller that left the queue (cancelled, timed out) ran, or one that nobody cancelled left.
  case leaving
  /// A time-out came early, or was thrown by a caller that ran.
  case timeOut
  /// A call from inside a block was not refused.
  case reentrance
  /// A call ended in a way no path of the rule allows.
  case outcome

  var lesson: Lesson {
    switch self {
    case .alone:
      Step5Tests.step.lesson(
        rule: "A write runs alone: while it runs, no read and no other write may start.",
        hint: "Admit a write only when no block runs, and nothing while a write runs; decide and "
          + "record a start under the same lock, and release a slot exactly once.",
        read: "many-readers-or-one-writer")
    case .firstComeFirstServed:
      Step5Tests.step.lesson(
        rule: "First come, first served: nobody starts while a caller that asked before it still "
          + "waits, except reads beside reads. Reads that wait together start together.",
        hint: "Keep one queue in arrival order; start a caller at once only when nobody waits; "
          + "admit from the front only, and stop at the first that cannot start yet.",
        read: "fifo-fairness")
    case .progress:
      Step5Tests.step.lesson(
        rule: "Whenever the slot frees, the callers at the front that may start do start; a "
          + "caller that leaves the queue returns at once; `waitingCount` is the queue's length.",
        hint: "Admit from the front after every release and every departure (a cancelled or "
          + "timed-out caller leaving may unblock the callers behind it), and resume every "
          + "waiter exactly once.",
        read: "leaving-the-queue")
    case .leaving:
      Step5Tests.step.lesson(
        rule: "A caller cancelled before its turn throws CancellationError, leaves the queue and "
          + "never runs its block; one cancelled after its turn runs on. Only the caller that "
          + "was cancelled leaves.",
        hint: "Look at `Task.isCancelled` under the lock that starts or queues the caller; on "
          + "cancel, remove exactly that caller (a key no other caller has) under the same lock.",
        read: "leaving-the-queue")
    case .timeOut:
      Step5Tests.step.lesson(
        rule: "A capped write that waited its limit throws SchedulerError.timedOut, leaves the "
          + "queue and never runs; one that got its turn first runs and keeps nothing of the "
          + "timer. It never throws before its limit.",
        hint: "Let the timer take the caller out of the queue under the lock, as a "
          + "cancellation does: whoever removes the waiter resumes it, so the grant and the "
          + "timer cannot both win.",
        read: "stretch-task")
    case .reentrance:
      Step5Tests.step.lesson(
        rule: "A block that calls back into its own scheduler, read or write, throws "
          + "SchedulerError.reentrantCall at once instead of waiting for itself.",
        hint: "Bind the task-local that marks a running block for reads and writes alike, inside "
          + "the block that perform runs, and look at it before anything else.",
        read: "re-entrance")
    case .outcome:
      Step5Tests.step.lesson(
        rule: "A call runs its block once and returns its result or rethrows its error; it "
          + "throws an error of its own only when cancelled, timed out or re-entrant.",
        hint: "Follow one caller through your code: every path resumes it once and runs its "
          + "block at most once.", read: "the-rule")
    }
  }
}
