import WorkshopSupport

/// Makes a random program of legal steps from a seed. It keeps a reference model as it goes, so
/// that every step names objects its context can see, and it never asks for what Apple leaves
/// open (refreshing an unsaved insert, editing a row another context deleted).
struct ProgramGenerator {
  private var random: SplitMix64
  private var model: ReferenceModel
  private let topology: Topology
  private let retainsRegisteredObjects: Bool
  private var nextNumber = 0
  private let seed: UInt64

  init(seed: UInt64) {
    self.seed = seed
    random = SplitMix64(seed: seed)
    topology = [
      .siblings(mergesAutomatically: true), .siblings(mergesAutomatically: false),
      .parentAndChild(mergesAutomatically: true), .parentAndChild(mergesAutomatically: false),
      .stack, .family(mergesAutomatically: true), .family(mergesAutomatically: false),
    ].randomElement(using: &random)!
    // One program in four keeps every object (`retainsRegisteredObjects`), so that objects that
    // outlive their step, and go stale, are still tried; the rest forget them, as Core Data does.
    retainsRegisteredObjects = Int.random(in: 0..<4, using: &random) == 0
    model =
      Program(
        seed: seed, topology: topology, retainsRegisteredObjects: retainsRegisteredObjects,
        operations: []
      ).model
  }

  /// A program of `length` steps.
  mutating func program(length: Int) -> Program {
    var operations: [Operation] = []
    while operations.count < length {
      guard let operation = next(), model.allows(operation, in: topology) else { continue }
      _ = model.apply(operation)
      operations.append(operation)
    }
    return Program(
      seed: seed, topology: topology, retainsRegisteredObjects: retainsRegisteredObjects,
      operations: operations)
  }

  private mutating func number() -> Int {
    defer { nextNumber += 1 }
    return nextNumber
  }

  private mutating func pick(_ entity: ReferenceModel.Entity, in context: Int) -> Int? {
    model.visible(entity, in: context).sorted().randomElement(using: &random)
  }

  private mutating func title() -> String {
    ["Dune", "Emma", "Ubik", "Kim"].randomElement(using: &random)!
  }

  private mutating func pages() -> Int { Int.random(in: 0..<10, using: &random) }

  /// One candidate step; nil when the dice chose something with nothing to act on.
  private mutating func next() -> Operation? {
    let c = Int.random(in: 0..<model.contexts.count, using: &random)
    switch Int.random(in: 0..<100, using: &random) {
    case 0..<14: return .insertBook(context: c, number: number(), title: title(), pages: pages())
    case 14..<20: return .insertAuthor(context: c, number: number(), name: title())
    case 20..<26: return pick(.book, in: c).map { .setTitle(context: c, book: $0, title: title()) }
    case 26..<32: return pick(.book, in: c).map { .setPages(context: c, book: $0, pages: pages()) }
    case 32..<38:
      guard let book = pick(.book, in: c) else { return nil }
      return .setAuthor(context: c, book: book, author: pick(.author, in: c))
    case 38..<42:
      guard let book = pick(.book, in: c), let author = pick(.author, in: c) else { return nil }
      return .addBook(context: c, author: author, book: book)
    case 42..<45:
      guard let book = pick(.book, in: c), let author = model.row(book, seenBy: c)?.author
      else { return nil }
      return .removeBook(context: c, author: author, book: book)
    case 45..<50:
      let entity: ReferenceModel.Entity = Bool.random(using: &random) ? .book : .author
      guard let object = pick(entity, in: c) else { return nil }
      return .delete(context: c, object: object)
    case 50..<53: return pick(.book, in: c).map { .read(context: c, object: $0) }
    case 53..<56: return .fetchBooks(context: c)
    case 56..<70: return .save(context: c)
    case 70..<73: return .rollback(context: c)
    case 73..<75: return .reset(context: c)
    case 75..<81:
      let registered = model.contexts[c].objects.keys.sorted()
      return registered.randomElement(using: &random).map {
        .refresh(context: c, object: $0, mergeChanges: Bool.random(using: &random))
      }
    case 81..<84:
      let others = model.contexts.indices.filter { $0 != c }
      return .mergeLastSave(from: others.randomElement(using: &random)!, into: c)
    case 84..<90:
      guard topology == .stack else { return nil }
      if Bool.random(using: &random) { return .stackSaveInsert(number: number(), title: title()) }
      let saved = model.store.keys.filter { model.entities[$0] == .book }.sorted()
      return saved.randomElement(using: &random).map { .stackSaveEdit(book: $0, pages: pages()) }
    case 90..<94:
      let count = Int.random(in: 1...2, using: &random)
      return .batchInsert(
        numbers: (0..<count).map { _ in number() }, merge: Bool.random(using: &random))
    case 94..<97:
      return .batchUpdate(
        pagesBelow: pages(), to: pages(), merge: Bool.random(using: &random))
    default:
      return .batchDelete(pagesBelow: pages(), merge: Bool.random(using: &random))
    }
  }
}
