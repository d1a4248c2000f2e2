import ManagedObjectCore
import Step2Solution
import Testing

/// Not an exam: what keeping IDs costs, shown on the solution (slides/02-objectid-refetch.md,
/// "The price"). Step 3 pays it off with a global actor.
@Suite("Step 2 — the price of keeping IDs")
struct ThePriceOfIDs {
  /// Any entity other than `CoreDataEntity`.
  final class Invoice: ManagedObject {
    @Attribute var total: Int = 0
  }

  @Test("An ID carries no type: a wrong cast compiles and fails only at run time")
  func anIDCarriesNoType() async throws {
    let container = PersistentContainer(name: "step2-price-type")
    let controller = CoreDataController(container: container)
    try await controller.configure(name: "untyped")
    let id = try #require(controller.entityID)

    let moc = container.newBackgroundContext()
    typealias Lookup = Result<Invoice, PersistenceError>
    let outcome = await moc.perform { () -> Lookup in
      Result { () throws(PersistenceError) in
        // Compiles: the ID has no type.
        try moc.existingObject(with: id, as: Invoice.self)
      }
    }
    let expected = PersistenceError.entityMismatch(id, expected: "Invoice")
    #expect(throws: expected) { try outcome.get() }
  }

  @Test("Every context refetches its own copy: the ID is a key, not a reference")
  func everyAccessRefetches() async throws {
    let container = PersistentContainer(name: "step2-price-refetch")
    let controller = CoreDataController(container: container)
    try await controller.configure(name: "fetched twice")
    let id = try #require(controller.entityID)

    let first = container.newBackgroundContext()
    let second = container.newBackgroundContext()
    // Each context keeps its copy alive: else the first could be freed before the second is
    // made, and the two could share an address, and so an ObjectIdentifier.
    first.retainsRegisteredObjects = true
    second.retainsRegisteredObjects = true
    let a = try await first.perform {
      ObjectIdentifier(try first.existingObject(with: id))
    }
    let b = try await second.perform {
      ObjectIdentifier(try second.existingObject(with: id))
    }
    #expect(a != b, "two contexts, two materialized copies of one row")
  }
}
