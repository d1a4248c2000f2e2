import ManagedObjectCore
import WorkshopSupport

/// What happened when a program ran, in order, with where it first broke the rule.
struct ControllerHistory: Sendable {
  enum Event: Sendable {
    case readOnly(controller: Int, on: Bool)
    case together([(ControllerCall, ControllerOutcome)])
    case store([String])
  }

  var events: [Event] = []
  /// Where it broke (an index into `events`) and how.
  var breach: (at: Int, breach: Breach)?
}

/// Runs a program on three controllers of one shape sharing one container, each step's calls
/// from a task each, and judges every answer, the store after each step, and the violations
/// the core reported, against ``ControllerSpecification``. It stops at the first breach.
///
/// What it cannot see: a race on the controller's own Swift state, except where it changes an
/// answer or the store (``Step1Tests`` says more).
enum ControllerProgramRun {
  static func run(_ steps: [ControllerStep], _ subject: Subject) async throws -> ControllerHistory {
    try await withTimeout(.seconds(20), "a random program of calls to controllers") {
      try await runUnbounded(steps, subject)
    }
  }

  private static func runUnbounded(_ steps: [ControllerStep], _ subject: Subject) async throws
    -> ControllerHistory
  {
    let container = PersistentContainer(name: "step1-histories")
    let controllers = (0..<ControllerProgramGenerator.controllers).map { _ in
      subject.make(container)
    }
    // Each context's name says which controller it is, in the violations too.
    let contexts = try controllers.map {
      try Step1Tests.keptContext(of: $0, lesson: Step1Tests.historyLesson)
    }
    for (index, context) in contexts.enumerated() {
      context.name = "\(context.name ?? "moc") of \(ControllerCall.letter(index))"
    }
    var states: Set<ControllerSpecification> = [
      ControllerSpecification(controllers: controllers.count)
    ]
    var history = ControllerHistory()
    for step in steps {
      switch step {
      case .readOnly(let controller, let on):
        contexts[controller].isReadOnly = on
        states = Set(
          states.map { state in
            var state = state
            if on { state.readOnly.insert(controller) } else { state.readOnly.remove(controller) }
            return state
          })
        history.events.append(.readOnly(controller: controller, on: on))
      case .together(let calls):
        let outcomes = await withTaskGroup(of: (Int, ControllerOutcome).self) { group in
          for (index, call) in calls.enumerated() {
            group.addTask { (index, await perform(call, controllers[call.controller])) }
          }
          var outcomes = [ControllerOutcome](repeating: .done, count: calls.count)
          for await (index, outcome) in group { outcomes[index] = outcome }
          return outcomes
        }
        let pairs = Array(zip(calls, outcomes))
        history.events.append(.together(pairs))
        // A violation first: code off its context's queue explains any answer.
        let violations = container.violations
        if !violations.isEmpty {
          history.breach = (
            history.events.count - 1,
            Breach(
              rule: Breach.Rule(violations),
              observed: "\(violations.count) violation(s):\n" + describe(violations, limit: 4))
          )
          return history
        }
        let stored = try await subject.storedNames(in: container).sorted()
        history.events.append(.store(stored))
        switch StepJudge.judge(pairs, stored: stored, from: states) {
        case .success(let next): states = next
        case .failure(let breach):
          // An answer is wrong in the step itself; the store, in the line after it.
          let at = history.events.count - (breach.rule == Breach.Rule.answer ? 2 : 1)
          history.breach = (at, breach)
          return history
        }
      }
    }
    return history
  }

  private static func perform(_ call: ControllerCall, _ controller: any Controller) async
    -> ControllerOutcome
  {
    do {
      switch call {
      case .configure: try await controller.configure()
      case .rename(let index, let version):
        try await controller.rename(to: ControllerCall.text(controller: index, version: version))
      case .name: return .name(await controller.name())
      case .delete: try await controller.delete()
      }
      return .done
    } catch let error as PersistenceError {
      if case .readOnlyContext = error { return .refused }
      return .threw("\(error)")
    } catch {
      return .threw("\(error)")
    }
  }
}
