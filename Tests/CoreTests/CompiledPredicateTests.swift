import Foundation
import ManagedObjectCore
import Testing

extension Book {
  /// Computed from an attribute: a key path to it must not be read as the attribute itself.
  var isLong: Bool { pages > 300 }
}

/// A fetch compiles the predicate shapes that `#Predicate` makes of attributes into closures over
/// the store's values (Steps/Core/Requests/CompiledPredicate.swift), and judges every other shape
/// on an object. Either way a fetch finds what evaluating the predicate on each object finds.
@Suite("Core: compiled fetch predicates")
struct CompiledPredicateTests {
  /// A store of samples with varied values, optional ones nil in every third row.
  static func samples() throws -> (PersistentContainer, ManagedObjectContext) {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      for index in 0..<30 {
        let sample = Sample(context: context)
        sample.required = "r\(index)"
        sample.text = "t\(index % 4)"
        sample.count = index
        sample.ratio = Double(index) / 4
        sample.flag = index % 2 == 0
        sample.when = Date(timeIntervalSince1970: Double(index * 100))
        sample.optionalCount = index % 3 == 0 ? nil : index
        sample.optionalText = index % 3 == 1 ? nil : "o\(index % 5)"
      }
      try context.save()
    }
    return (container, context)
  }

  /// The names of the rows the fetch finds, and of those for which the predicate, evaluated on
  /// every object, holds; from a fresh context, so that only the store's values count.
  static func bothWays(
    _ predicate: Predicate<Sample>, in container: PersistentContainer
  ) throws -> (fetched: [String], evaluated: [String], compiled: Bool?) {
    let reader = container.newBackgroundContext()
    return try reader.performAndWait {
      let compiled = reader.compiles(predicate)
      let fetched = try reader.fetch(FetchRequest<Sample>(predicate: predicate)).map(\.required)
      let evaluated = try reader.fetch(FetchRequest<Sample>()).filter {
        try predicate.evaluate($0)
      }.map(\.required)
      return (fetched.sorted(), evaluated.sorted(), compiled)
    }
  }

  static let compilable: [(String, Predicate<Sample>)] = {
    let cutoff = Date(timeIntervalSince1970: 1_500)
    return [
      ("==", #Predicate { $0.count == 7 || $0.required == "r9" }),
      ("!=", #Predicate { $0.text != "t1" }),
      ("<", #Predicate { $0.ratio < 2.5 }),
      (">=", #Predicate { $0.when >= cutoff }),
      ("&& and ||", #Predicate { ($0.flag && $0.count > 10) || $0.text == "t3" }),
      ("!", #Predicate { !$0.flag }),
      ("% and /", #Predicate { $0.count % 5 == 0 && $0.count / 10 == 1 }),
      ("+ - *", #Predicate { $0.count * 2 - 3 > 20 + $0.count }),
      ("optional == nil", #Predicate { $0.optionalCount == nil }),
      ("optional == value", #Predicate { $0.optionalText == "o2" }),
      ("optional != nil", #Predicate { $0.optionalText != nil }),
      ("??", #Predicate { ($0.optionalCount ?? 100) > 25 }),
    ]
  }()

  @Test("A compiled predicate finds what evaluating it on each object finds", arguments: compilable)
  func compiledAgrees(_ shape: String, _ predicate: Predicate<Sample>) throws {
    let (container, _) = try Self.samples()
    let (fetched, evaluated, compiled) = try Self.bothWays(predicate, in: container)
    #expect(compiled == true, "\(shape) should compile")
    #expect(fetched == evaluated, "\(shape)")
    #expect(!fetched.isEmpty && fetched.count < 30, "\(shape) should split the rows")
  }

  @Test("A shape that does not compile is judged on objects, with the same results")
  func otherShapesFallBack() throws {
    let (container, _) = try Self.samples()
    let method = #Predicate<Sample> { $0.text.contains("2") || $0.count == 1 }
    let (fetched, evaluated, compiled) = try Self.bothWays(method, in: container)
    #expect(compiled == false)
    #expect(fetched == evaluated && !fetched.isEmpty)
  }

  @Test("A computed property and a relationship are not read as attributes")
  func computedAndRelationships() throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    try context.performAndWait {
      let author = Author(context: context)
      author.name = "Herbert"
      for (title, pages) in [("Dune", 412), ("Short", 90), ("Long", 800)] {
        let book = Book(context: context)
        book.title = title
        book.pages = pages
        if title != "Short" { book.author = author }
      }
      try context.save()
    }
    let reader = container.newBackgroundContext()
    let long = #Predicate<Book> { $0.isLong }
    let written = #Predicate<Book> { $0.author?.name == "Herbert" }
    let plain = #Predicate<Book> { $0.pages > 300 }
    let (compiled, longTitles, writtenCount) = try reader.performAndWait {
      (
        [reader.compiles(long), reader.compiles(written), reader.compiles(plain)],
        try reader.fetch(FetchRequest(predicate: long)).map(\.title).sorted(),
        try reader.count(for: FetchRequest(predicate: written))
      )
    }
    #expect(compiled == [false, false, true])
    #expect(longTitles == ["Dune", "Long"])
    #expect(writtenCount == 2)
  }
}
