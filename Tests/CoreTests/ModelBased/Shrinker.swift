/// Shrinks a failing program: drops steps, halves first and then one at a time, while the program
/// still fails, then simplifies the steps that are left. `fails` runs a candidate (in a child
/// process when a crash is possible) and says whether it still fails.
struct Shrinker {
  let fails: (Program) async -> Bool

  func shrink(_ failing: Program) async -> Program {
    var program = failing.applicable
    var size = max(program.operations.count / 2, 1)
    while true {
      var removedAny = false
      var start = 0
      while start < program.operations.count {
        var candidate = program
        candidate.operations.removeSubrange(start..<min(start + size, program.operations.count))
        candidate = candidate.applicable
        if candidate.operations.count < program.operations.count, await fails(candidate) {
          program = candidate
          removedAny = true
        } else {
          start += size
        }
      }
      if size == 1 && !removedAny { break }
      size = max(size / 2, 1)
    }
    return await simplified(program)
  }

  /// Each step replaced by a simpler one where the program still fails: no merge after a batch
  /// request, a refresh that keeps changes, small numbers of pages.
  private func simplified(_ program: Program) async -> Program {
    var program = program
    for index in program.operations.indices {
      for simpler in Self.simpler(program.operations[index]) {
        var candidate = program
        candidate.operations[index] = simpler
        if await fails(candidate) {
          program = candidate
          break
        }
      }
    }
    return program
  }

  static func simpler(_ operation: Operation) -> [Operation] {
    switch operation {
    case .batchInsert(let numbers, true): [.batchInsert(numbers: numbers, merge: false)]
    case .batchUpdate(let limit, let pages, true):
      [.batchUpdate(pagesBelow: limit, to: pages, merge: false)]
    case .batchDelete(let limit, true): [.batchDelete(pagesBelow: limit, merge: false)]
    case .insertBook(let context, let number, let title, let pages) where pages != 0:
      [.insertBook(context: context, number: number, title: title, pages: 0)]
    case .setPages(let context, let book, let pages) where pages != 0:
      [.setPages(context: context, book: book, pages: 0)]
    default: []
    }
  }
}
