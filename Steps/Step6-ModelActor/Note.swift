import ManagedObjectCore

/// The entity of this step: a note with some text.
nonisolated public final class Note: ManagedObject {
  @Attribute public var text: String = ""
}
