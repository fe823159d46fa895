import APIProbeShared
import ArgumentParser
import FixtureServer
import Foundation
import HTTPFixtures
import OpenAPISupport
import ProbeRunner

/// `apiprobe serve`: the fixtures as an HTTP server on loopback, for UI tests, previews and other processes.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the fixtures of a folder over HTTP, matched as the stubs match them in swift test.",
        discussion: """
            Answers each request from the fixtures below --stubs with the matching rules of HTTPStubs (method, \
            path, query items, a redacted query value matching any value, and a fixture's "match": patterns, \
            cookies, body pointers, priorities), as if it had been sent to the origin the fixtures were recorded \
            against (--origin when they name several). Fixtures of the same request answer in turn, in the order \
            of their names, the last repeating (search.json, then search.2.json); a fixture's "state" moves a \
            state machine, and a "template" fixture's answer is filled from the request. A HEAD no fixture names \
            is answered as its GET without the body; a 3xx fixture is sent as it is (a Location to the fixtures' \
            origin made relative, so the client follows it here); a fixture's "fault" closes the connection \
            without an answer. An edit to the folder is served from the next request after at most 200 ms, at \
            once after POST /__apiprobe/reload; only the sequences whose fixtures changed start over. A request no fixture matches is answered 404 with the closest \
            fixtures and why each differs, as JSON, and a line on standard error. The first line printed names \
            the URL; a request body over 16 MiB is answered 413. SIGINT or SIGTERM stop it with status 0.

            Scenarios: the fixtures in <api>/scenarios/<name>/ answer over the others only while their scenario \
            is active: --scenario at the start, POST /__apiprobe/scenario from a test. The admin API under \
            /__apiprobe/ also lists and verifies the requests received, injects faults and delays, and resets \
            (see HTTPStubs' FixtureServerClient for the UI-test side).

            With --proxy, a request no fixture matches is sent to the live API; its answer is passed back and \
            recorded below --stubs as a redacted fixture (credentials by name and by value, as apiprobe record \
            does), which answers the same request from then on. A live API that does not answer within 30 s is \
            a 502 that says why, and nothing is recorded.

            With --spec, a request no fixture matches is answered from the description's own example for its \
            operation (its first success status with a JSON example; the header X-Apiprobe-Example names the \
            example's JSON Pointer), or a 404 saying the operation has none; a request with Prefer: code=404, \
            example=notFound (Prism's convention) gets that example over any fixture; the stubs folder may then hold no \
            fixture. With --validate-requests too, a request that does not fit its operation (parameters and JSON \
            body, by the rule of openapi check) is answered 400 with each problem's JSON Pointer. With --proxy \
            and --spec, recordings are named after the description's operations.

            Exit status: 0 stopped by a signal; 2 a folder without fixtures (and no --spec or --proxy), a bad \
            fixture or description (file and place), fixtures of several origins without --origin, an unknown \
            --scenario, or a port in use.
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

    @Option(name: .long, help: "The scenario active at the start: the fixtures of <api>/scenarios/<name>/.")
    var scenario: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: "Latency added to every answer from a fixture or an example (50ms, 1s; at most 10m).",
        transform: DurationArgument.parse)
    var latency: Duration?

    @Option(
        name: .long, help: "The live API (https://api.example.com) that answers, and records, what no fixture matches.")
    var proxy: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A token the admin API asks for (Authorization: Bearer TOKEN), at least 16 characters; required with a --host other than loopback. Read from APIPROBE_ADMIN_TOKEN when not given.",
            valueName: "token"))
    var adminToken: String?

    @Flag(
        name: .long,
        help:
            "Let pages of other origins call the server (CORS: preflights answered, answers allow the caller's origin); never the admin API."
    )
    var cors = false

    func validate() throws {
        if validateRequests, spec == nil {
            throw ValidationError("--validate-requests: expected --spec, the description requests are checked against")
        }
        guard (0...65_535).contains(port) else { throw ValidationError("--port \(port): expected 0 to 65535") }
        if let latency, latency > .seconds(600) {
            throw ValidationError("--latency \(formatDuration(latency)): expected at most 10m")
        }
        for (option, value) in [("--origin", origin), ("--proxy", proxy)] {
            guard let value else { continue }
            if let url = URL(string: value), url.user != nil || url.password != nil {
                // Never printed, logged or written: the server names its origins on the console and in fixtures.
                throw ValidationError(
                    "\(option): expected a scheme and host without credentials; the requests carry their own")
            }
            guard Self.origin(value) != nil else {
                throw ValidationError("\(option) \(value): expected a scheme and host, like https://api.example.com")
            }
        }
    }

    /// `value` as an origin: http or https, a host, no path, query or fragment.
    static func origin(_ value: String) -> URL? {
        guard let url = URL(string: value), ["http", "https"].contains(url.scheme?.lowercased() ?? ""),
            url.host != nil, url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil
        else { return nil }
        return url
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: stubs, isDirectory: true)
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder)
        guard exists && isFolder.boolValue || !exists && (spec != nil || proxy != nil) else {
            throw ValidationError("--stubs \(stubs): expected a folder of fixtures, found none")
        }
        let description: OpenAPISpec?
        if let spec {
            let url = URL(fileURLWithPath: spec)
            description = try await onLargeStack {
                let spec = try OpenAPISpec(contentsOf: url)
                try spec.compileSchemas()
                return spec
            }
        } else {
            description = nil
        }
        let stop = StopSignal()
        let errors = Terminal.standardError
        let server: FixtureServer
        do {
            var options = FixtureServer.Options()
            options.origin = origin.flatMap(Self.origin)
            options.host = host
            options.port = port
            options.spec = description
            options.validatesRequests = validateRequests
            options.scenario = scenario
            options.latency = latency ?? .zero
            options.proxy = proxy.flatMap(Self.origin)
            options.cors = cors
            options.adminToken = adminToken ?? ProcessInfo.processInfo.environment["APIPROBE_ADMIN_TOKEN"]
            if let token = options.adminToken { _ = Terminal.secrets.add(token, replacement: "REDACTED") }
            server = try await FixtureServer.start(folder: folder, displayName: stubs, options: options) { line in
                errors.write("apiprobe serve: " + line + "\n")
            }
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
        var extras: [String] = []
        if !server.scenarios.isEmpty {
            extras.append(
                "Scenarios: \(server.scenarios.joined(separator: ", ")); active: \(server.scenario ?? "none").")
        }
        if let proxy { extras.append("What no fixture matches goes to \(proxy) and is recorded below \(stubs).") }
        out.write(
            "Serving \(server.fixtureCount) fixture\(server.fixtureCount == 1 ? "" : "s") of \(stubs)\(examples) "
                + "(recorded against \(server.origin.absoluteString)) on http://\(shownHost):\(server.port)\n"
                + extras.map { $0 + "\n" }.joined() + "Stop with Ctrl-C.\n")
        await stop.wait()
        await server.stop()
        out.write("Stopped (\(stop.received == SIGINT ? "SIGINT" : "SIGTERM")).\n")
    }
}
