import ArgumentParser

// Placeholder until its issue lands; replaced by the command's real implementation.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "init", abstract: "Not built yet.")

    func run() async throws {
        Terminal.standardError.write("apiprobe init: not built yet\n")
        throw ExitCode(3)
    }
}
