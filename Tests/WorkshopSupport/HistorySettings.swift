import WorkshopEnvironment

/// What a history check's random programs are made from: `WORKSHOP_SEED` and
/// `WORKSHOP_HISTORIES` when set (a failure prints its seed, to replay it), else a new seed each
/// run and the check's own number of programs.
public enum HistorySettings {
  /// The seed of this run's programs.
  public static var seed: UInt64 {
    WorkshopEnvironment.value(WorkshopEnvironment.seed).flatMap(UInt64.init)
      ?? UInt64.random(in: 1..<1_000_000)
  }

  /// How many programs to run: `WORKSHOP_HISTORIES`, or `defaultCount`.
  public static func programs(_ defaultCount: Int) -> Int {
    WorkshopEnvironment.value(WorkshopEnvironment.histories).flatMap(Int.init) ?? defaultCount
  }
}
