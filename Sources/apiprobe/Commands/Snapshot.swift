import ArgumentParser

// Placeholder until its issue lands; replaced by the command's real implementation.
struct SnapshotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "snapshot", abstract: "Not built yet.")

    func run() async throws {
        Terminal.standardError.write("apiprobe snapshot: not built yet\n")
        throw ExitCode(3)
    }
}
