import ArgumentParser
import FixtureServer
import Foundation
import OpenAPISupport

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

            With --spec, a request no fixture matches is answered from the description's own example for its \
            operation (its first success status with a JSON example; the header X-Apiprobe-Example names the \
            example's JSON Pointer), or a 404 saying the operation has none; the stubs folder may then hold no \
            fixture. With --validate-requests too, a request that does not fit its operation (parameters and JSON \
            body, by the rule of openapi check) is answered 400 with each problem's JSON Pointer.

            Exit status: 0 stopped by a signal; 2 a folder without fixtures (and no --spec), a bad fixture or \
            description (file and place), fixtures of several origins without --origin, or a port in use.
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

    @Option(name: .long, help: "An OpenAPI description whose examples answer what no fixture matches.")
    var spec: String?

    @Flag(name: .long, help: "Answer 400 to a request that does not fit its operation in --spec.")
    var validateRequests = false

    func validate() throws {
        if validateRequests, spec == nil {
            throw ValidationError("--validate-requests: expected --spec, the description requests are checked against")
        }
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
        let exists = FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder)
        guard exists && isFolder.boolValue || !exists && spec != nil else {
            throw ValidationError("--stubs \(stubs): expected a folder of fixtures, found none")
        }
        let description: OpenAPISpec?
        if let spec {
            let url = URL(fileURLWithPath: spec)
            description = try await onLargeStack { try OpenAPISpec(contentsOf: url) }
        } else {
            description = nil
        }
        let stop = StopSignal()
        let errors = Terminal.standardError
        let server: FixtureServer
        do {
            server = try await FixtureServer.start(
                folder: folder, displayName: stubs, origin: origin.flatMap { URL(string: $0) }, host: host, port: port,
                spec: description, validatesRequests: validateRequests
            ) { line in errors.write("apiprobe serve: " + line + "\n") }
        } catch let failure as FixtureServer.Failure {
            throw ValidationError(failure.description)
        }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let out = Terminal.standardOutput
        let examples =
            description.map {
                " and the examples of \($0.file) (\($0.operations.count) operations"
                    + (validateRequests ? ", requests validated" : "") + ")"
            } ?? ""
        out.write(
            "Serving \(server.fixtureCount) fixture\(server.fixtureCount == 1 ? "" : "s") of \(stubs)\(examples) "
                + "(recorded against \(server.origin.absoluteString)) on http://\(shownHost):\(server.port)\n"
                + "Stop with Ctrl-C.\n")
        await stop.wait()
        await server.stop()
        out.write("Stopped (\(stop.received == SIGINT ? "SIGINT" : "SIGTERM")).\n")
    }
}
