// PROBE: compiles
// Its ID can travel: the other model actor looks the note up in its own context.
import ManagedObjectCore
import Subject

func handOver(from first: DataHandler, to second: DataHandler) async throws -> String? {
  let id = try await first.addNote("travels")
  return await second.text(of: id)
}
