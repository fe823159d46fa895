import ArgumentParser

// Placeholder until its issue lands; replaced by the command's real implementation.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "import", abstract: "Not built yet.")

    func run() async throws {
        Terminal.standardError.write("apiprobe import: not built yet\n")
        throw ExitCode(3)
    }
}
