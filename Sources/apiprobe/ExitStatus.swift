import ArgumentParser
import HTTPFixtures
import JSONShape
import ProbeRunner

/// The exit statuses of every command (README, "Exit status"), and the one place that maps errors to them.
enum ExitStatus: Int32 {
    /// All checks held.
    case success = 0
    /// A check failed: breaking drift, an expectation not met, an unreachable endpoint.
    case checkFailed = 1
    /// Bad usage or bad input.
    case badInput = 2
    /// An internal error.
    case internalError = 3

    /// The status for an error a command threw: a failed check is 1; an error about the user's input (a file, a
    /// flag, a config, a folder that cannot be written) is 2; ArgumentParser's own errors keep their meaning
    /// (`--help` and `--version` 0, usage errors 2); anything else is an internal error, 3.
    init(for error: any Error, in command: any ParsableCommand.Type) {
        switch error {
        case is ChecksFailed:
            self = .checkFailed
        case is InputError, is RecordError, is HistoryFileError, is ValidationError:
            self = .badInput
        case let exitCode as ExitCode:
            self = ExitStatus(rawValue: exitCode.rawValue) ?? .internalError
        default:
            switch command.exitCode(for: error) {
            case .success: self = .success  // --help, --version
            case .validationFailure: self = .badInput  // ArgumentParser's usage errors
            default: self = .internalError
            }
        }
    }
}

/// A check failed: exits with status 1 after the command has printed its report. The one way a command says so.
struct ChecksFailed: Error, CustomStringConvertible {
    var description: String { "" }
}
