import APIProbeShared
import ArgumentParser
import Foundation
import HTTPFixtures

/// The `apiprobe` command: argument parsing and output only; the logic lives in the libraries.
@main
struct APIProbe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apiprobe",
        abstract: "API contract testing and monitoring for Swift HTTP/JSON clients.",
        discussion: """
            Exit status: 0 all checks held; 1 a check failed; 2 bad usage or bad input; 3 an internal error.
            """,
        version: apiprobeVersion,
        subcommands: [
            DemoCommand.self,
            RunCommand.self,
            InitCommand.self,
            RecordCommand.self,
            SnapshotCommand.self,
            SchemaCommand.self,
            ImportCommand.self,
            OpenAPICommand.self,
        ]
    )

    /// Runs the command and owns the exit status (README, "Exit status"): ArgumentParser's own defaults (64 for usage,
    /// 1 for any error) would collide with `1`, which means "a check failed".
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let status = ExitStatus(for: error, in: self)
            if status != .success || !(error is ExitCode) {
                let message = fullMessage(for: error)
                if !message.isEmpty {
                    if status == .success {
                        Terminal.standardOutput.write(message + "\n")
                    } else {
                        Terminal.standardError.write(message + "\n")
                    }
                }
            }
            exit(withError: ExitCode(status.rawValue))
        }
    }
}
