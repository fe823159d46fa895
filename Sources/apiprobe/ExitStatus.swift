import ArgumentParser
import HTTPFixtures

/// The exit statuses of every command (README, "Exit status").
enum ExitStatus: Int32 {
    /// All checks held.
    case success = 0
    /// A check failed: breaking drift, an expectation not met, an unreachable endpoint.
    case checkFailed = 1
    /// Bad usage or bad input.
    case badInput = 2
    /// An internal error.
    case internalError = 3

    init(for error: any Error, in command: any ParsableCommand.Type) {
        if let exitCode = error as? ExitCode {
            self = ExitStatus(rawValue: exitCode.rawValue) ?? .internalError
            return
        }
        if error is ChecksFailed {
            self = .checkFailed
            return
        }
        if error is any BadInput || error is FixtureError || error is JSONSyntaxError || error is ValidationError {
            self = .badInput
            return
        }
        switch command.exitCode(for: error) {
        case .success: self = .success  // --help, --version
        case .validationFailure: self = .badInput  // ArgumentParser's usage errors
        default: self = .internalError
        }
    }
}

/// An error about the user's input (a file, a flag, a config): exits with status 2.
/// Library error types adopt it in the command files that surface them.
protocol BadInput: Error {}

/// A check failed: exits with status 1 after the command has printed its report.
struct ChecksFailed: Error, CustomStringConvertible {
    var description: String { "" }
}
