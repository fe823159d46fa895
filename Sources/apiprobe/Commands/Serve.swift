import ArgumentParser
import FixtureServer
import Foundation

/// `apiprobe serve`: the fixtures as an HTTP server on loopback, for UI tests, previews and other processes.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the fixtures of a folder over HTTP, matched as the stubs match them in swift test.",
        discussion: """
            Answers each request from the fixtures below --stubs with the matching rules of HTTPStubs (method, \
            path, query items, a redacted query value matching any value; redirects followed), as if it had \
            been sent to the origin the fixtures were recorded against (--origin when they name several). A \
            request no fixture matches is answered 404 with the closest fixtures and why each differs, as JSON, \
            and a line on standard error. The first line printed names the URL; a request body over 16 MiB is \
            answered 413. SIGINT or SIGTERM stop it with status 0.
            Exit status: 0 stopped by a signal; 2 a folder without fixtures, a bad fixture (file and place), \
            fixtures of several origins without --origin, or a port in use.
            """
    )

    @Option(name: .long, help: "The folder of fixtures (Stubs/<api>).")
    var stubs: String = "Stubs"

    @Option(name: .long, help: "The port to listen on (default: one the system picks, printed).")
    var port: Int = 0

    @Option(name: .long, help: "The address to listen on; another than loopback only when asked.")
    var host: String = "127.0.0.1"

    @Option(name: .long, help: "The origin the fixtures were recorded against (https://api.example.com).")
    var origin: String?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port \(port): expected 0 to 65535") }
        if let origin {
            guard let url = URL(string: origin), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
                url.host != nil, url.path.isEmpty || url.path == "/", url.query == nil
            else {
                throw ValidationError("--origin \(origin): expected a scheme and host, like https://api.example.com")
            }
        }
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: stubs, isDirectory: true)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            throw ValidationError("--stubs \(stubs): expected a folder of fixtures, found none")
        }
        let stop = StopSignal()
        let errors = Terminal.standardError
        let server: FixtureServer
        do {
            server = try await FixtureServer.start(
                folder: folder, displayName: stubs, origin: origin.flatMap { URL(string: $0) }, host: host, port: port
            ) { line in errors.write("apiprobe serve: " + line + "\n") }
        } catch let failure as FixtureServer.Failure {
            throw ValidationError(failure.description)
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let out = Terminal.standardOutput
        out.write(
            "Serving \(server.fixtureCount) fixture\(server.fixtureCount == 1 ? "" : "s") of \(stubs) "
                + "(recorded against \(server.origin.absoluteString)) on http://\(shownHost):\(server.port)\n"
                + "Stop with Ctrl-C.\n")
        await stop.wait()
        await server.stop()
        out.write("Stopped (\(stop.received == SIGINT ? "SIGINT" : "SIGTERM")).\n")
    }
}
