// PROBE: fails: non-Sendable
// A note fetched in one model actor cannot be handed to another: it is not Sendable.
import ManagedObjectCore
import Subject

extension DataHandler {
  func note(_ id: ManagedObjectID) -> Note? {
    self[id, as: Note.self]
  }

  func keep(_ note: Note?) {}
}

func handOver(_ id: ManagedObjectID, from first: DataHandler, to second: DataHandler) async {
  let note = await first.note(id)
  await second.keep(note)
}
