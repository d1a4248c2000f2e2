import Foundation

// `swift run workshop [command]`: runs the steps' checks through `swift test` and says what to
// do next. `Workshop.run` does the work; this file only hands it the arguments.
exit(Workshop.run(Array(CommandLine.arguments.dropFirst())))
