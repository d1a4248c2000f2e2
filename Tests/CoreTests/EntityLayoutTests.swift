import Foundation
import ManagedObjectCore
import Testing

/// An entity other entities inherit from: its properties live in every subclass's objects.
class Vehicle: ManagedObject {
  @Attribute var name: String = ""
  @Attribute var wheels: Int = 4
}

final class Bicycle: Vehicle {
  @Attribute var gears: Int = 1
  @Attribute var serial: UUID = UUID()
}

// The core finds an entity's properties once per class (EntityLayout) and keeps each object's
// values in the object itself; these pin down what that must not change.
@Suite("Entity layout: properties found per class, values kept per object")
struct EntityLayoutTests {
  @Test("A subclass entity has its superclass's properties too, saved, fetched and named")
  func inheritedProperties() async throws {
    let container = makeContainer()
    let writer = container.newBackgroundContext()
    let id = try await writer.perform {
      let bicycle = Bicycle(context: writer)
      #expect(bicycle.wheels == 4)
      bicycle.name = "Roadster"
      bicycle.wheels = 2
      bicycle.gears = 21
      #expect(Set(bicycle.changedValues().keys) == ["name", "wheels", "gears", "serial"])
      try writer.save()
      return bicycle.objectID
    }
    let reader = container.newBackgroundContext()
    let fetched = try await reader.perform {
      let vehicles = try reader.fetch(FetchRequest<Vehicle>())
      let bicycle = try #require(vehicles.first as? Bicycle)
      return (vehicles.count, bicycle.objectID, bicycle.name, bicycle.wheels, bicycle.gears)
    }
    #expect(fetched.0 == 1)
    #expect(fetched.1 == id)
    #expect(fetched.2 == "Roadster")
    #expect(fetched.3 == 2)
    #expect(fetched.4 == 21)
    #expect(container.violations.isEmpty)

    // A violation names the property, also one declared by the superclass.
    let bicycle = try await reader.perform { try reader.existingObject(with: id, as: Bicycle.self) }
    _ = bicycle.wheels
    let violation = try #require(container.violations.first)
    #expect(violation.entity == "Bicycle")
    #expect(violation.property == "wheels")
  }

  @Test("Each object keeps its own values, and a default is evaluated for each object")
  func valuesPerObject() async throws {
    let container = makeContainer()
    let context = container.newBackgroundContext()
    try await context.perform {
      let first = Bicycle(context: context)
      let second = Bicycle(context: context)
      first.gears = 3
      #expect(second.gears == 1)
      #expect(first.serial != second.serial)
      try context.save()
      #expect(first.gears == 3)
      #expect(second.gears == 1)
    }
    #expect(container.violations.isEmpty)
  }
}
