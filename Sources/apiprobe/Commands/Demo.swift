import ArgumentParser

// Placeholder until its issue lands; replaced by the command's real implementation.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "demo", abstract: "Not built yet.")

    func run() async throws {
        Terminal.standardError.write("apiprobe demo: not built yet\n")
        throw ExitCode(3)
    }
}
