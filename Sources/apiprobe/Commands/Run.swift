import ArgumentParser

// Placeholder until its issue lands; replaced by the command's real implementation.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Not built yet.")

    func run() async throws {
        Terminal.standardError.write("apiprobe run: not built yet\n")
        throw ExitCode(3)
    }
}
