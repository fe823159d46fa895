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
            StatusPageCommand.self,
            ServeCommand.self,
            ContractCommand.self,
        ]
    )

    /// Runs the command and owns the exit status (README, "Exit status"): ArgumentParser's own defaults (64 for usage,
    /// 1 for any error) would collide with `1`, which means "a check failed".
    static func main() async {
        var parsed: (any ParsableCommand.Type)?
        do {
            var command = try parseAsRoot()
            parsed = type(of: command)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let status = ExitStatus(for: error, in: self)
            if status != .success || !(error is ExitCode) {
                let message = message(for: error, whileRunning: parsed)
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

    /// ArgumentParser's text for `error`; a usage error a subcommand throws while it runs (`init` refusing to
    /// replace a file, a `--history` that cannot be read) shows that subcommand's usage line, not the root's.
    static func message(for error: any Error, whileRunning command: (any ParsableCommand.Type)?) -> String {
        guard let command, ObjectIdentifier(command) != ObjectIdentifier(APIProbe.self), error is ValidationError,
            let path = commandPath(to: command, from: APIProbe.self)
        else { return fullMessage(for: error) }
        let name = (["apiprobe"] + path).joined(separator: " ")
        return "Error: \(error)\nUsage: \(usageString(for: command))\n  See '\(name) --help' for more information."
    }

    /// The subcommand names from `root` down to `command` (`["snapshot", "check"]`).
    private static func commandPath(to command: any ParsableCommand.Type, from root: any ParsableCommand.Type)
        -> [String]?
    {
        for subcommand in root.configuration.subcommands {
            let name = subcommand.configuration.commandName ?? String(describing: subcommand).lowercased()
            if ObjectIdentifier(subcommand) == ObjectIdentifier(command) { return [name] }
            if let rest = commandPath(to: command, from: subcommand) { return [name] + rest }
        }
        return nil
    }
}
