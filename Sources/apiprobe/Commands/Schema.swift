import ArgumentParser

// Placeholder until its issue lands; replaced by the command's real implementation.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "schema", abstract: "Not built yet.")

    func run() async throws {
        Terminal.standardError.write("apiprobe schema: not built yet\n")
        throw ExitCode(3)
    }
}
