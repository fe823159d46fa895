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
/// try await server.injectFault(path: "/api/search", status: 503)   // the next search fails
/// app.launchEnvironment["API_BASE_URL"] = server.baseURL.absoluteString
/// // … drive the app …
/// let sent = try await server.requests()
/// XCTAssertEqual(sent.map(\.url), ["/api/search?q=chicken"])
/// ```
public struct FixtureServerClient: Sendable {
    /// The server's URL, as `apiprobe serve` prints it on its first line.
    public var baseURL: URL
    private let session: URLSession

    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    /// The next `times` requests with `method` and `path` (no query) are answered `status`.
    public func injectFault(method: String = "GET", path: String, status: Int, times: Int = 1) async throws {
        let body = try JSONSerialization.data(withJSONObject: [
            "method": method, "path": path, "status": status, "times": times,
        ])
        _ = try await send("POST", "faults", body: body)
    }

    /// What the server received since it started or was last reset, in order.
    public func requests() async throws -> [ServedRequest] {
        struct Log: Decodable { var requests: [ServedRequest] }
        return try JSONDecoder().decode(Log.self, from: try await send("GET", "requests")).requests
    }

    /// Reads the fixtures again, starts their sequences over, and clears the log and the faults.
    public func reset() async throws { _ = try await send("POST", "reset") }

    private func send(_ method: String, _ endpoint: String, body: Data? = nil) async throws -> Data {
        var request = URLRequest(url: baseURL.appendingPathComponent("__apiprobe").appendingPathComponent(endpoint))
        request.httpMethod = method
        request.httpBody = body
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw FixtureServerClientError(
                status: status, message: String(decoding: data, as: UTF8.self), endpoint: "\(method) \(endpoint)")
        }
        return data
    }
}

/// One request `apiprobe serve` received.
public struct ServedRequest: Sendable, Hashable, Decodable {
    public var method: String
    /// The path and query, with credentials masked.
    public var url: String
    /// The fixture that answered; `nil` for a miss or an injected fault.
    public var fixture: String?
    /// The status answered; `nil` for a miss.
    public var status: Int?

    public init(method: String, url: String, fixture: String? = nil, status: Int? = nil) {
        self.method = method
        self.url = url
        self.fixture = fixture
        self.status = status
    }
}

/// The admin API answered with an error status.
public struct FixtureServerClientError: Error, Sendable, Hashable, CustomStringConvertible {
    public var status: Int
    /// The server's answer (JSON with an `error`).
    public var message: String
    /// `POST faults`, `GET requests`, `POST reset`.
    public var endpoint: String

    public var description: String { "apiprobe serve's \(endpoint) answered \(status): \(message)" }
}
