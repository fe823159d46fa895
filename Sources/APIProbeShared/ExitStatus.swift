/// The exit statuses of every command (README, "Exit status").
package enum ExitStatus: Int32, Sendable {
    /// All checks held.
    case success = 0
    /// A check failed: breaking drift, an expectation not met, an unreachable endpoint.
    case checkFailed = 1
    /// Bad usage or bad input.
    case badInput = 2
    /// An internal error.
    case internalError = 3
}

/// An error that says the exit status it ends a command with. Every error type a command can let out conforms, so a
/// new one cannot fall into "internal error" by omission: `ExitStatusTests` finds every error type in `Sources/`
/// and fails for one that neither conforms nor is listed there as one that never reaches a command.
package protocol ExitStatusReporting: Error {
    var exitStatus: ExitStatus { get }
}
