import Foundation

/// The store's rows by row number. Rows are numbered densely from 1 (`reserveRows`), so they
/// index arrays: no hashing, a quarter of a dictionary's memory, and rows come out in order.
///
/// The arrays are chunks of 1,024 rows, shared between copies of the table. A commit works on a
/// copy, to apply all of a save or none of it; a change copies only the chunk it touches, so a
/// save of a few rows into a large store copies a chunk, not the whole store, under its lock.
struct RowTable: Sequence {
  private final class Chunk {
    var rows: [InMemoryStore.Row?]

    init(_ rows: [InMemoryStore.Row?]) {
      self.rows = rows
    }
  }

  private static let chunkSize = 1_024
  private var chunks: [Chunk] = []

  /// The chunk and the index in it of `row`.
  private static func position(_ row: Int64) -> (chunk: Int, index: Int) {
    precondition(row >= 1, "row numbers start at 1")
    let offset = Int(row) - 1
    return (offset / chunkSize, offset % chunkSize)
  }

  subscript(row: Int64) -> InMemoryStore.Row? {
    get {
      let (chunk, index) = Self.position(row)
      return chunks.indices.contains(chunk) ? chunks[chunk].rows[index] : nil
    }
    set {
      let (chunk, index) = Self.position(row)
      if chunk >= chunks.count {
        guard newValue != nil else { return }
        for _ in chunks.count...chunk {
          chunks.append(Chunk(Array(repeating: nil, count: Self.chunkSize)))
        }
      }
      if !isKnownUniquelyReferenced(&chunks[chunk]) {
        chunks[chunk] = Chunk(chunks[chunk].rows)
      }
      chunks[chunk].rows[index] = newValue
    }
  }

  mutating func removeValue(forKey row: Int64) -> InMemoryStore.Row? {
    defer { self[row] = nil }
    return self[row]
  }

  /// The rows that exist, in row order.
  func makeIterator() -> some IteratorProtocol<(key: Int64, value: InMemoryStore.Row)> {
    chunks.lazy.enumerated().flatMap { chunk, rows in
      rows.rows.lazy.enumerated().compactMap { index, slot in
        slot.map { (key: Int64(chunk * Self.chunkSize + index) + 1, value: $0) }
      }
    }.makeIterator()
  }
}
