public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// The UI-test side of `apiprobe serve`: steers the server the app under test talks to, through its admin API
/// (`/__apiprobe/`), with nothing but Foundation.
///
/// ```swift
/// let server = FixtureServerClient(baseURL: URL(string: "http://127.0.0.1:54012")!)
/// try await server.reset()
/// try await server.injectFault(path: "/api/search", status: 503)  // the next search fails
/// try await server.activateScenario("empty-account")               // its fixtures answer over the others
/// app.launchEnvironment["API_BASE_URL"] = server.baseURL.absoluteString
/// // … drive the app …
/// try await server.requireRequests(path: "/api/search", count: 2) // the app retried once
/// let sent = try await server.requests()
/// XCTAssertEqual(sent.map(\.url), ["/api/search?q=chicken", "/api/search?q=chicken"])
/// ```
///
/// A path may be a template (`/api/recipes/{id}`) in ``injectFault(method:path:status:delay:times:)`` and
/// ``requireRequests(method:path:count:)``; it never has a query.
public struct FixtureServerClient: Sendable {
    /// The server's URL, as `apiprobe serve` prints it on its first line.
    public var baseURL: URL
    private let session: URLSession
    private var adminToken: String?

    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    /// A client of a server started with `--admin-token` (required when it listens on another address than
    /// loopback): each admin request sends `Authorization: Bearer <adminToken>`.
    public init(baseURL: URL, adminToken: String, session: URLSession = .shared) {
        self.init(baseURL: baseURL, session: session)
        self.adminToken = adminToken
    }

    /// The next `times` requests with `method` and `path` wait `delay`, then are answered `status` (with
    /// `{"error": "injected by apiprobe"}`), or, with no status, as they would have been.
    ///
    /// - Throws: ``FixtureServerClientError`` when the server refuses it: a status outside 200–599, a path without
    ///   a leading `/` or with a query, no status and no delay, a delay over 10 minutes.
    public func injectFault(
        method: String = "GET", path: String, status: Int? = nil, delay: Duration = .zero, times: Int = 1
    ) async throws {
        var fault: [String: Any] = ["method": method, "path": path, "times": times]
        if let status { fault["status"] = status }
        if delay > .zero {
            let (seconds, attoseconds) = delay.components
            fault["delayMs"] = Int(seconds) * 1_000 + Int(attoseconds / 1_000_000_000_000_000)
        }
        _ = try await send("POST", "faults", body: try JSONSerialization.data(withJSONObject: fault))
    }

    /// What the server received since it started or was last reset, in order (the latest 10,000).
    public func requests() async throws -> [ServedRequest] {
        struct Log: Decodable { var requests: [ServedRequest] }
        return try JSONDecoder().decode(Log.self, from: try await send("GET", "requests")).requests
    }

    /// Checks that the server received exactly `count` requests with `method` and `path` since it started or was
    /// last reset, and returns them.
    ///
    /// - Throws: ``FixtureServerClientError`` (status 417) whose message says how many were found and, when none
    ///   was, the latest requests received.
    @discardableResult
    public func requireRequests(method: String = "GET", path: String, count: Int) async throws -> [ServedRequest] {
        try await requireRequests(["method": method, "path": path, "count": count])
    }

    /// Checks that the server received at least `minimum` requests with `method` and `path`, and returns them.
    @discardableResult
    public func requireRequests(
        method: String = "GET", path: String, atLeast minimum: Int
    ) async throws -> [ServedRequest] {
        try await requireRequests(["method": method, "path": path, "atLeast": minimum])
    }

    /// Checks that the server received exactly `count` requests with `method` and `path` that also carry what
    /// `filter` names (headers, query items, a JSON body holding at least its members), and returns them.
    @discardableResult
    public func requireRequests(
        method: String = "GET", path: String, count: Int, where filter: ServedRequestFilter
    ) async throws -> [ServedRequest] {
        try await requireRequests(try filter.adding(to: ["method": method, "path": path, "count": count]))
    }

    /// Checks that the server received at least `minimum` requests with `method` and `path` that also carry what
    /// `filter` names, and returns them.
    @discardableResult
    public func requireRequests(
        method: String = "GET", path: String, atLeast minimum: Int, where filter: ServedRequestFilter
    ) async throws -> [ServedRequest] {
        try await requireRequests(try filter.adding(to: ["method": method, "path": path, "atLeast": minimum]))
    }

    private func requireRequests(_ question: [String: Any]) async throws -> [ServedRequest] {
        struct Answer: Decodable { var requests: [ServedRequest] }
        let data = try await send("POST", "verify", body: try JSONSerialization.data(withJSONObject: question))
        return try JSONDecoder().decode(Answer.self, from: data).requests
    }

    /// Serves the fixtures of `scenario` (`<api>/scenarios/<scenario>/`) over the others from the next request on;
    /// `nil` for none. Every sequence starts over.
    ///
    /// - Throws: ``FixtureServerClientError`` (status 404) naming the scenarios the folder holds.
    public func activateScenario(_ scenario: String?) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["name": scenario.map { $0 as Any } ?? NSNull()])
        _ = try await send("POST", "scenario", body: body)
    }

    /// The scenario active now, and every scenario the served folder holds.
    public func scenarios() async throws -> (active: String?, all: [String]) {
        struct Answer: Decodable {
            var active: String?
            var scenarios: [String]
        }
        let answer = try JSONDecoder().decode(Answer.self, from: try await send("GET", "scenarios"))
        return (answer.active, answer.scenarios)
    }

    /// Reads the fixtures again, starts their sequences over, goes back to the scenario of the start, puts every
    /// state machine in its initial state, and clears the log and the faults.
    public func reset() async throws { _ = try await send("POST", "reset") }

    /// Reads the folder again now, so that an edit just written is what the next request gets (without it, the
    /// server looks at the folder at most every 200 ms). Only the sequences whose fixtures changed start over.
    ///
    /// - Returns: the names of the fixtures that changed (added, edited or removed).
    /// - Throws: ``FixtureServerClientError`` (status 409) naming the file and place when the folder does not load.
    @discardableResult
    public func reload() async throws -> [String] {
        struct Answer: Decodable { var changed: [String] }
        return try JSONDecoder().decode(Answer.self, from: try await send("POST", "reload")).changed
    }

    /// The state of each state machine a fixture has moved (a fixture's `metadata.state`); a machine not listed is
    /// in `FixtureState.initial`.
    public func states() async throws -> [String: String] {
        struct Answer: Decodable { var states: [String: String] }
        return try JSONDecoder().decode(Answer.self, from: try await send("GET", "state")).states
    }

    /// Puts the state machine `machine` in `state`: a test that starts in the middle of a flow.
    public func setState(_ state: String, of machine: String) async throws {
        _ = try await send(
            "POST", "state", body: try JSONSerialization.data(withJSONObject: ["name": machine, "state": state]))
    }

    private func send(_ method: String, _ endpoint: String, body: Data? = nil) async throws -> Data {
        var request = URLRequest(url: baseURL.appendingPathComponent("__apiprobe").appendingPathComponent(endpoint))
        request.httpMethod = method
        request.httpBody = body
        if let adminToken { request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            var message = String(decoding: data, as: UTF8.self)
            if let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let error = object["error"] as? String
            {
                message = error
            }
            throw FixtureServerClientError(status: status, message: message, endpoint: "\(method) \(endpoint)")
        }
        return data
    }
}

/// What the requests counted by ``FixtureServerClient/requireRequests(method:path:count:where:)`` carry beyond
/// their method and path.
public struct ServedRequestFilter: Sendable, Hashable {
    /// Headers with these values (names in any case).
    public var headers: [String: String]
    /// Query items with these values (others may come too).
    public var query: [String: String]
    /// JSON text the request's JSON body holds at least (each member at its place; arrays item by item).
    public var jsonBody: String?

    public init(headers: [String: String] = [:], query: [String: String] = [:], jsonBody: String? = nil) {
        self.headers = headers
        self.query = query
        self.jsonBody = jsonBody
    }

    func adding(to question: [String: Any]) throws -> [String: Any] {
        var question = question
        if !headers.isEmpty { question["headers"] = headers }
        if !query.isEmpty { question["query"] = query }
        if let jsonBody {
            question["body"] = try JSONSerialization.jsonObject(
                with: Data(jsonBody.utf8), options: [.fragmentsAllowed])
        }
        return question
    }
}

/// One request `apiprobe serve` received.
public struct ServedRequest: Sendable, Hashable, Decodable {
    public var method: String
    /// The path and query, with credentials masked.
    public var url: String
    /// The fixture that answered (for ``source`` `proxy`, the recording made); `nil` for a miss, a fault, an
    /// example.
    public var fixture: String?
    /// The status answered; `nil` for a miss, or a fixture's fault (the connection closed without an answer).
    public var status: Int?
    /// What answered: `fixture`, `fault`, `example` (the description's), `proxy` (the live API), `invalid` (a 400 of
    /// `--validate-requests`) or `miss`.
    public var source: String?

    public init(method: String, url: String, fixture: String? = nil, status: Int? = nil, source: String? = nil) {
        self.method = method
        self.url = url
        self.fixture = fixture
        self.status = status
        self.source = source
    }
}

/// The admin API answered with an error status.
public struct FixtureServerClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    /// The server's `error`: what it expected, or what it found (a verification), with the place.
    public var message: String
    /// `POST faults`, `GET requests`, `POST verify`, `POST scenario`, `POST reset`, `POST reload`, `GET state`,
    /// `POST state`.
    public var endpoint: String

    public var description: String { "apiprobe serve's \(endpoint) answered \(status): \(message)" }
}
