import APIProbeShared
package import Foundation
import HTTPFixtures
import HTTPStubs
import HTTPTypes
import Hummingbird
import NIOCore
package import OpenAPISupport
import RecipesServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fixtures of a folder served over HTTP (`apiprobe serve`), for every process that cannot use the in-process
/// stubs: a UI test's app, a preview, the Android and web teammates. Requests are answered by a ``StubSet`` holding
/// the fixtures (the same matcher, redirects and diagnostics as `HTTPStubs` in `swift test`, not a copy).
///
/// The fixtures were recorded against one origin (`https://api.example.com`); a request to the server is matched as
/// if it had been sent there, with its path and query. A request no fixture matches is answered 404 with the
/// near-miss diagnostics as JSON, and a line in the log. A fixture changed on disk is served from the next request
/// on (``FixtureLibrary``).
///
/// With a description (`--spec`), a request no fixture matches is answered from the description's own example for
/// its operation, or a 404 that says the operation has none; with `--validate-requests`, a request that does not
/// fit its operation (the rule of `openapi check`) is answered 400 with the JSON Pointer of each problem.
package struct FixtureServer: Sendable {
    package let port: Int
    package let origin: URL
    package let fixtureCount: Int
    private let task: Task<Void, any Error>

    /// The largest request body read; a larger one is answered 413.
    package static let maximumRequestBody = 16 << 20

    /// A folder that cannot be served: no fixtures, a bad fixture, fixtures of several origins.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Loads every fixture below `folder` and starts serving them on `host`:`port` (0: the system picks).
    ///
    /// - Parameters:
    ///   - origin: the scheme, host and port the fixtures were recorded against; `nil` when they all share one.
    ///   - log: a line for each request no fixture matched.
    /// - Throws: ``Failure`` naming the folder or the fixture (a ``FixtureError`` says the file and the place), or
    ///   the port.
    package static func start(
        folder: URL, displayName: String, origin: URL?, host: String, port: Int, spec: OpenAPISpec? = nil,
        validatesRequests: Bool = false, log: @escaping @Sendable (String) -> Void
    ) async throws -> FixtureServer {
        let store = FixtureStore(directory: folder)
        // With a description, a folder without fixtures is served from the description's examples alone.
        let (exchanges, signature) = try Self.load(store, displayName: displayName, allowsNone: spec != nil)
        let chosen: URL
        if let origin {
            chosen = origin
        } else if exchanges.isEmpty, let spec {
            chosen = Self.origin(of: spec)
        } else {
            chosen = try Self.origin(of: exchanges.map(\.1), displayName: displayName)
        }
        let library = FixtureLibrary(
            store: store, displayName: displayName, stubs: Self.stubSet(exchanges), signature: signature,
            allowsNone: spec != nil, log: log)
        let responder = FixtureResponder(
            library: library, origin: chosen, spec: spec, validatesRequests: validatesRequests, log: log)
        do {
            let (bound, task) = try await LoopbackLaunch.start(
                responder, host: host, port: port, name: "apiprobe serve")
            return FixtureServer(port: bound, origin: chosen, fixtureCount: exchanges.count, task: task)
        } catch {
            throw Failure(
                description: "--port \(port): \(error)"
                    + (error.isAddressInUse
                        ? "; choose another port, or leave --port out for one the system picks" : ""))
        }
    }

    /// Runs until the task is cancelled (or the server fails).
    package func wait() async throws { try await task.value }

    /// Stops accepting connections and returns when the port is closed.
    package func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Every fixture of `store`, and the signature of the files they came from; none is an error unless
    /// `allowsNone`.
    static func load(_ store: FixtureStore, displayName: String, allowsNone: Bool = false) throws -> (
        [(String, Exchange)], [String: String]
    ) {
        let signature = FixtureLibrary.signature(of: store)
        let names = store.names()
        guard !names.isEmpty || allowsNone else {
            throw Failure(description: "\(displayName): expected fixtures (*.json), found none")
        }
        var exchanges: [(String, Exchange)] = []
        for name in names { exchanges.append((name, try store.exchange(named: name))) }
        return (exchanges, signature)
    }

    static func stubSet(_ exchanges: [(String, Exchange)]) -> StubSet {
        let stubs = StubSet()
        for (name, exchange) in exchanges { stubs.stub(exchange, name: name) }
        return stubs
    }

    /// The origin of a description's first server (`https://api.example.com`), or `http://localhost` for one
    /// whose servers are relative or absent.
    static func origin(of spec: OpenAPISpec) -> URL {
        var first = ""
        if case .array(let servers)? = spec.root["servers"], case .string(let url)? = servers.first?["url"] {
            first = url
        }
        guard let components = URLComponents(string: first), let scheme = components.scheme,
            let host = components.host,
            let url = URL(string: "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? ""))
        else { return URL(string: "http://localhost")! }
        return url
    }

    /// The one origin every fixture was recorded against.
    static func origin(of exchanges: [Exchange], displayName: String) throws(Failure) -> URL {
        var origins: [String] = []
        for exchange in exchanges {
            guard let components = URLComponents(string: exchange.request.url), let scheme = components.scheme,
                let host = components.host
            else { continue }
            let origin = "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
            if !origins.contains(origin) { origins.append(origin) }
        }
        guard origins.count == 1, let url = URL(string: origins[0]) else {
            throw Failure(
                description: "\(displayName): expected fixtures recorded against one origin, found "
                    + (origins.isEmpty ? "none" : origins.joined(separator: ", "))
                    + "; serve one API's folder (Stubs/<api>), or give --origin")
        }
        return url
    }
}

/// The fixtures being served, read again when a file changes: a request finds the folder as it is (checked at most
/// every ``checkInterval``). A folder that no longer loads (a fixture being written, a bad edit) keeps the last good
/// set, and says why once per change.
final class FixtureLibrary: Sendable {
    static let checkInterval: Duration = .milliseconds(200)
    let store: FixtureStore
    let displayName: String
    let allowsNone: Bool
    let log: @Sendable (String) -> Void
    private let state: Locked<(stubs: StubSet, signature: [String: String], checked: ContinuousClock.Instant)>
    private let faults = Locked<[AdminAPI.Fault]>([])

    init(
        store: FixtureStore, displayName: String, stubs: StubSet, signature: [String: String], allowsNone: Bool = false,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.store = store
        self.displayName = displayName
        self.allowsNone = allowsNone
        self.log = log
        state = Locked((stubs, signature, ContinuousClock.now))
    }

    /// Each fixture file's size and modification time, by name.
    static func signature(of store: FixtureStore) -> [String: String] {
        var signature: [String: String] = [:]
        for name in store.names() {
            // stat(2) itself: Foundation's attributes cost 20 times as much, and a request waits for this check
            // every 200 ms (a folder of 1,000 fixtures cost 8% of the throughput and tripled the p99).
            var info = stat()
            guard stat(store.url(for: name).path, &info) == 0 else {
                signature[name] = "unreadable"
                continue
            }
            #if canImport(Darwin)
            let modified = info.st_mtimespec
            #else
            let modified = info.st_mtim
            #endif
            signature[name] = "\(info.st_size) \(modified.tv_sec).\(modified.tv_nsec)"
        }
        return signature
    }

    /// The fixtures read again (sequences start over, the log is empty) and the faults cleared.
    ///
    /// - Throws: why the folder does not load (the file and the place); nothing is reset then.
    func reset() throws {
        let (exchanges, signature) = try FixtureServer.load(store, displayName: displayName, allowsNone: allowsNone)
        faults.withLock { $0 = [] }
        state.withLock { $0 = (FixtureServer.stubSet(exchanges), signature, ContinuousClock.now) }
    }

    func addFault(_ fault: AdminAPI.Fault) { faults.withLock { $0.append(fault) } }

    var faultCount: Int { faults.withLock { $0.count } }

    /// The status of an injected fault for `method` and `path`, used up by this request; `nil` when none applies.
    func takeFault(method: String, path: String) -> Int? {
        faults.withLock { faults in
            guard let index = faults.firstIndex(where: { $0.method == method && $0.path == path }) else { return nil }
            faults[index].remaining -= 1
            let status = faults[index].status
            if faults[index].remaining == 0 { faults.remove(at: index) }
            return status
        }
    }

    /// The stub set for the folder as it is now.
    func current() -> StubSet {
        let now = ContinuousClock.now
        let (stubs, signature, due) = state.withLock { state in
            let due = now - state.checked >= Self.checkInterval
            if due { state.checked = now }
            return (state.stubs, state.signature, due)
        }
        guard due else { return stubs }
        let found = Self.signature(of: store)
        guard found != signature else { return stubs }
        do {
            let (exchanges, loadedSignature) = try FixtureServer.load(
                store, displayName: displayName, allowsNone: allowsNone)
            let reloaded = FixtureServer.stubSet(exchanges)
            state.withLock { $0 = (reloaded, loadedSignature, now) }
            log("reloaded \(exchanges.count) fixture\(exchanges.count == 1 ? "" : "s") of \(displayName)")
            return reloaded
        } catch {
            // Remember the broken state, so the error is said once, and go on with the last good set.
            state.withLock { $0.signature = found }
            log("\(error) (still serving the fixtures read before)")
            return stubs
        }
    }
}

/// Answers each request from the stub set, as if it had been sent to the fixtures' origin.
struct FixtureResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let library: FixtureLibrary
    let origin: URL
    /// The description whose examples answer a miss, and whose operations judge each request when
    /// `validatesRequests`.
    var spec: OpenAPISpec?
    var validatesRequests = false
    let log: @Sendable (String) -> Void

    /// Headers of one transfer, set by the server for the body it sends, never copied from a fixture.
    static let transferHeaders = ["Content-Length", "Transfer-Encoding", "Connection", "Keep-Alive"]

    func respond(to request: Request, context: Context) async throws -> Response {
        // What the server says about a request (its answer to a miss, the log) passes the redactor: a client's
        // `?api_key=…` is not echoed into logs.
        let redactor = Redactor()
        // Made only when the request is named (a miss, an error, the log): an answered request costs no redaction.
        var shown: String { "\(request.method.rawValue) \(redactor.redactURL(request.uri.description))" }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: FixtureServer.maximumRequestBody)
        } catch {
            return Self.json(
                status: .contentTooLarge,
                [
                    "error": "the request body is larger than \(FixtureServer.maximumRequestBody) bytes",
                    "request": shown,
                ])
        }
        if request.uri.path.hasPrefix(AdminAPI.prefix) {
            return AdminAPI.respond(to: request, body: body, library: library)
        }
        let base =
            origin.absoluteString.hasSuffix("/") ? String(origin.absoluteString.dropLast()) : origin.absoluteString
        guard let url = URL(string: base + request.uri.description) else {
            return Self.json(status: .badRequest, ["error": "the request target is not a URL path", "request": shown])
        }
        var headers = HeaderFields()
        for field in request.headers { headers.append(name: field.name.rawName, value: field.value) }
        let stubRequest = StubRequest(
            method: request.method.rawValue, url: url, headers: headers,
            body: body.readableBytes > 0 ? Data(body.readableBytesView) : nil)
        if validatesRequests, let spec {
            let recorded = RecordedRequest(
                method: request.method.rawValue, url: url.absoluteString,
                headers: Dictionary(request.headers.map { ($0.name.rawName, $0.value) }) { first, _ in first },
                body: body.readableBytes > 0
                    ? Body(bytes: Data(body.readableBytesView), contentType: request.headers[.contentType]) : nil)
            if let (operation, problems) = spec.requestProblems(recorded), !problems.isEmpty {
                let lines = problems.map { redactor.redact(text: "\($0.pointer): \($0.kind): \($0.message)") }
                log(
                    "400 \(shown): does not fit \(operation.name) in \(spec.file)\n  " + lines.joined(separator: "\n  ")
                )
                return Self.json(
                    status: .badRequest,
                    .object([
                        ("error", .string("the request does not fit the description")),
                        ("operation", .string(operation.name)), ("request", .string(shown)),
                        (
                            "problems",
                            .array(
                                problems.map {
                                    .object([
                                        ("pointer", .string($0.pointer)), ("kind", .string($0.kind.rawValue)),
                                        ("message", .string(redactor.redact(text: $0.message))),
                                    ])
                                })
                        ),
                    ]))
            }
        }
        let stubs = library.current()
        if let status = library.takeFault(method: request.method.rawValue, path: request.uri.path) {
            stubs.logAnsweredElsewhere(stubRequest, status: status)
            log("\(status) \(shown): injected by POST \(AdminAPI.prefix)faults")
            return Self.json(
                status: HTTPResponse.Status(code: status), ["error": "injected by apiprobe", "request": shown])
        }
        switch stubs.answer(stubRequest) {
        case .response(let wire, _, let latency):
            if latency > .zero { try await Task.sleep(for: latency) }
            if case .failed(let code) = wire.ending {
                return Self.json(
                    status: .badGateway,
                    ["error": "the fixture's fault: the request fails (URLError \(code.rawValue))", "request": shown])
            }
            var fields = HTTPFields()
            for (name, value) in wire.headers.sorted(by: { $0.key < $1.key })
            where !Self.transferHeaders.contains(where: { headerNamesMatch($0, name) }) {
                if let field = HTTPField.Name(name) { fields.append(HTTPField(name: field, value: value)) }
            }
            return Response(
                status: HTTPResponse.Status(code: wire.status), headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: wire.body)))
        case .failure(let error, _):
            let diagnostics = redactor.redact(text: error.userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)")
            var answer = ["error": "no fixture matches the request", "request": shown, "diagnostics": diagnostics]
            if let spec {
                switch spec.exampleAnswer(method: request.method.rawValue, url: url.absoluteString) {
                case .example(let status, let body, let operation, let pointer):
                    log("\(status) \(shown): no fixture; the example of \(operation) at \(pointer)")
                    return Response(
                        status: HTTPResponse.Status(code: status),
                        headers: [.contentType: "application/json", Self.exampleHeader: pointer],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: body.serialized())))
                case .noExample(let operation):
                    answer["error"] =
                        "no fixture matches the request, and \(operation) has no example of a success response in \(spec.file)"
                case .noOperation:
                    answer["error"] = "no fixture matches the request, and no operation of \(spec.file) takes it"
                }
            }
            log("404 \(shown): \(answer["error"] ?? "")\n\(diagnostics)")
            return Self.json(status: .notFound, answer)
        }
    }

    /// The header of an answer taken from the description's example: the example's JSON Pointer in it.
    static let exampleHeader = HTTPField.Name("X-Apiprobe-Example")!

    /// A JSON answer of the server's own (a miss, an error, the admin API): sorted keys, two-space indent.
    static func json(status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: value.serialized(pretty: true, sortedKeys: true))))
    }

    static func json(status: HTTPResponse.Status, _ members: [String: String]) -> Response {
        json(status: status, .object(members.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
    }
}
