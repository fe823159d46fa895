import ArgumentParser

// Placeholder until its issue lands; replaced by the command's real implementation.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "record", abstract: "Not built yet.")

    func run() async throws {
        Terminal.standardError.write("apiprobe record: not built yet\n")
        throw ExitCode(3)
    }
}
