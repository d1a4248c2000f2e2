import Testing
import workshop

@Suite("Runner: the command line")
struct CommandTests {
  @Test("Each command and its options")
  func parses() throws {
    let cases: [([String], Command)] = [
      ([], .overview),
      (["help"], .help),
      (["--help"], .help),
      (["check", "1"], .check(step: 1, both: false)),
      (["check", "3", "--both"], .check(step: 3, both: true)),
      (["check", "1", "--race"], .race(step: 1, runs: 5)),
      (["check", "1", "--race", "--runs", "5"], .race(step: 1, runs: 5)),
      (["watch", "2"], .watch(step: 2, both: false, runs: nil)),
      (["watch", "2", "--runs", "3", "--both"], .watch(step: 2, both: true, runs: 3)),
      (["hint", "4"], .hint(step: 4, mode: .next)),
      (["hint", "4", "--again"], .hint(step: 4, mode: .again)),
      (["hint", "4", "--reset"], .hint(step: 4, mode: .reset)),
      (["reset", "5"], .reset(step: 5, confirmed: false)),
      (["reset", "5", "--yes"], .reset(step: 5, confirmed: true)),
      (["diff", "6"], .diff(step: 6)),
      (["doctor"], .doctor),
    ]
    for (arguments, command) in cases {
      #expect(try Command(arguments: arguments) == command, "\(arguments)")
    }
  }

  @Test("What it does not understand is a usage error that says what was wrong")
  func rejects() {
    let cases: [([String], String)] = [
      (["frob"], "unknown command 'frob'"),
      (["check"], "'check' needs a step number, e.g. `check 1`"),
      (["check", "one"], "'check' needs a step number, e.g. `check 1`"),
      (["check", "0"], "'check' needs a step number, e.g. `check 1`"),
      (["check", "1", "--bothh"], "'check' does not take '--bothh'"),
      (["check", "1", "--race", "--both"], "--race checks your side only: leave out --both"),
      (["check", "1", "--runs", "2"], "'check' does not take '--runs' '2'"),
      (["watch", "1", "--runs"], "--runs needs a number of runs, e.g. `--runs 2`"),
      (["watch", "1", "--runs", "0"], "--runs needs a number of runs, e.g. `--runs 2`"),
      (["hint", "1", "--again", "--reset"], "give `hint` either --again or --reset, not both"),
      (["diff", "1", "--yes"], "'diff' does not take '--yes'"),
      (["doctor", "1"], "'doctor' does not take '1'"),
    ]
    for (arguments, message) in cases {
      #expect(throws: Command.UsageError(description: message), "\(arguments)") {
        try Command(arguments: arguments)
      }
    }
  }

  @Test("The usage text lists every command")
  func usageListsCommands() {
    for command in ["check N", "watch N", "hint N", "diff N", "reset N", "doctor", "help"] {
      #expect(Command.usage.contains("\n  \(command) "), "\(command)")
    }
  }

  @Test("Steps come from the folders Steps/Step<N>-<Name>, in order")
  func findsSteps() {
    let steps = Step.all(in: [
      "Step2-ObjectIDRefetch", "Core", "Step10-Later", "Step1-Unsafe", "Step-X", "StepA-B", "Step3",
    ])
    #expect(steps.map(\.number) == [1, 2, 10])
    #expect(steps[0].title == "Unsafe")
    #expect(steps[0].starter == "Steps/Step1-Unsafe")
    #expect(steps[0].solution == "Solutions/Step1-Unsafe")
    #expect(steps[0].hints == "Steps/Step1-Unsafe/Hints")
    // `Step1Tests` selects Step 1's checks and not Step 10's (`Step10Tests`).
    #expect(steps[0].filter == "Step1Tests")
    #expect(!"Step10Tests".contains(steps[0].filter))
  }
}
