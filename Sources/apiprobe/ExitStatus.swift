import APIProbeShared
import ArgumentParser

extension ExitStatus {
    /// The status for an error a command threw: the one its type says (`ExitStatusReporting`: a failed check 1;
    /// an error about the user's input, a file, a flag, a config, a folder that cannot be written 2);
    /// ArgumentParser's own errors keep their meaning (`--help` and `--version` 0, usage errors 2); anything else
    /// is an internal error, 3.
    init(for error: any Error, in command: any ParsableCommand.Type) {
        switch error {
        case let reporting as any ExitStatusReporting:
            self = reporting.exitStatus
        case is ValidationError:
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
struct ChecksFailed: ExitStatusReporting, CustomStringConvertible {
    var description: String { "" }
    var exitStatus: ExitStatus { .checkFailed }
}
