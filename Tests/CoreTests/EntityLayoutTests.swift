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

/// Values that leave bytes unused (an empty `Data`, a nil optional) beside one another, over two
/// classes: the unused bytes of one field can hold a copy of another field's wrapper, made while
/// the object was initialized, and the core must not take that copy for the wrapper.
class Parcel: ManagedObject {
  @Attribute var label: Data = Data()
  @Attribute var memo: String?
}

final class Crate: Parcel {
  @Attribute var contents: Data = Data()
  @Attribute var seal: String?
  @Attribute var weight: Int?
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

  @Test("Every value is saved from and loaded into its own property, over unused bytes too")
  func valuesLandInTheirOwnProperties() async throws {
    let container = makeContainer()
    let writer = container.newBackgroundContext()
    let id = try await writer.perform {
      let crate = Crate(context: writer)
      crate.label = Data([1, 2, 3])
      crate.contents = Data([4, 5])
      crate.seal = "sealed"
      try writer.save()
      return crate.objectID
    }
    let reader = container.newBackgroundContext()
    let values = try await reader.perform {
      let crate = try reader.existingObject(with: id, as: Crate.self)
      return (crate.label, crate.memo, crate.contents, crate.seal, crate.weight)
    }
    #expect(values.0 == Data([1, 2, 3]))
    #expect(values.1 == nil)
    #expect(values.2 == Data([4, 5]))
    #expect(values.3 == "sealed")
    #expect(values.4 == nil)
    #expect(container.violations.isEmpty)
  }
}
