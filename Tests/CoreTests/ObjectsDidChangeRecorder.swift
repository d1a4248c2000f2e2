import ManagedObjectCore
import Synchronization
import WorkshopSupport

/// Records a context's objects-did-change notifications until ``stop()``, and opens ``first`` at
/// the first one: a test waits for an automatic merge on the gate, never on the clock.
final class ObjectsDidChangeRecorder: Sendable {
  private let changes = Mutex<[ContextObjectsDidChange]>([])
  private let token = Mutex<SaveObserverToken?>(nil)
  private let context: ManagedObjectContext
  /// Opens when the first notification arrives.
  let first = Gate()

  init(_ context: ManagedObjectContext) {
    self.context = context
    let token = context.addObjectsDidChangeObserver { [self] change in
      changes.withLock { $0.append(change) }
      first.open()
    }
    self.token.withLock { $0 = token }
  }

  /// Every notification so far, in order.
  var all: [ContextObjectsDidChange] { changes.withLock { $0 } }

  /// Ends the registration (the context's observer keeps the recorder alive until then).
  func stop() {
    token.withLock { token in
      if let token { context.removeObjectsDidChangeObserver(token) }
      token = nil
    }
  }
}
