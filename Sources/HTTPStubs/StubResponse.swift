public import Foundation

/// What a stub answers: a status, headers and a body, or a fault; optionally after a delay.
///
/// ```swift
/// stubs.stub(.get("/api/search"), responses: [
///     .status(503).withHeaders(["Retry-After": "1"]),   // first call
///     .fixture(try store.exchange(named: "recipes/search")),  // every later call
/// ])
/// stubs.stub(.get("/api/get"), response: .failure(.timedOut).delayed(by: .milliseconds(50)))
/// ```
public struct StubResponse: Sendable, Hashable {
    public var status: Int
    /// The headers; a repeated field (`Set-Cookie` once per cookie) keeps each value.
    public var headers: HeaderFields
    public var body: Data
    /// How long the stub waits before answering (or failing).
    public var latency: Duration
    /// A transport failure instead of (or in the middle of) the response.
    public var fault: StubFault?

    public init(
        status: Int = 200, headers: HeaderFields = [:], body: Data = Data(), latency: Duration = .zero,
        fault: StubFault? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.latency = latency
        self.fault = fault
    }

    /// A JSON body (compact, as a server sends it) with `Content-Type: application/json`.
    public static func json(_ value: JSONValue, status: Int = 200, headers: HeaderFields = [:]) -> StubResponse {
        StubResponse(
            status: status, headers: (["Content-Type": "application/json"] as HeaderFields).replacing(with: headers),
            body: value.serialized())
    }

    /// JSON text sent as is, with `Content-Type: application/json`.
    public static func json(text: String, status: Int = 200, headers: HeaderFields = [:]) -> StubResponse {
        StubResponse(
            status: status, headers: (["Content-Type": "application/json"] as HeaderFields).replacing(with: headers),
            body: Data(text.utf8))
    }

    /// A value encoded with `encoder`, with `Content-Type: application/json`.
    public static func encoded<Value: Encodable>(
        _ value: Value, encoder: JSONEncoder = JSONEncoder(), status: Int = 200, headers: HeaderFields = [:]
    ) throws -> StubResponse {
        StubResponse(
            status: status, headers: (["Content-Type": "application/json"] as HeaderFields).replacing(with: headers),
            body: try encoder.encode(value))
    }

    /// Plain bytes.
    public static func data(_ data: Data, status: Int = 200, headers: HeaderFields = [:]) -> StubResponse {
        StubResponse(status: status, headers: headers, body: data)
    }

    /// UTF-8 text with `Content-Type: text/plain; charset=utf-8` unless `headers` says otherwise.
    public static func text(_ text: String, status: Int = 200, headers: HeaderFields = [:]) -> StubResponse {
        StubResponse(
            status: status,
            headers: (["Content-Type": "text/plain; charset=utf-8"] as HeaderFields).replacing(with: headers),
            body: Data(text.utf8))
    }

    /// A status with an empty body.
    public static func status(_ status: Int, headers: HeaderFields = [:]) -> StubResponse {
        StubResponse(status: status, headers: headers)
    }

    /// The recorded response of a fixture: status, headers and body as recorded.
    public static func fixture(_ exchange: Exchange) -> StubResponse {
        var headers = exchange.response.headers
        // The body is served decoded and whole: a recorded length or encoding would not fit it.
        for name in ["Content-Length", "Content-Encoding", "Transfer-Encoding"] { headers[name] = nil }
        var response = StubResponse(
            status: exchange.response.status, headers: headers, body: exchange.response.body?.data ?? Data())
        if let fault = exchange.metadata.fault.flatMap(StubFault.named) { response = .failure(fault) }
        if let latency = exchange.metadata.latency { response = response.delayed(by: latency) }
        return response
    }

    /// A redirect to `location` (absolute, or relative to the request's URL). The stub set follows it
    /// itself, as URLSession would (see ``StubSet``), so the client receives the final response.
    public static func redirect(to location: String, status: Int = 302) -> StubResponse {
        StubResponse(status: status, headers: ["Location": location])
    }

    /// A transport failure, as the `URLError` a real client sees.
    public static func failure(_ fault: StubFault) -> StubResponse {
        StubResponse(status: 0, fault: fault)
    }

    /// The same response after `latency`.
    public func delayed(by latency: Duration) -> StubResponse {
        var copy = self
        copy.latency = latency
        return copy
    }

    /// The same response with more headers, replacing those of the same name in any case
    /// (`content-type` replaces `Content-Type`: one header is sent, not two).
    public func withHeaders(_ extra: HeaderFields) -> StubResponse {
        var copy = self
        copy.headers = headers.replacing(with: extra)
        return copy
    }

    /// The same response, with the connection dropped after `bytes` bytes of the body
    /// (``StubFault/dropped(afterBytes:)``).
    public func dropped(afterBytes bytes: Int) -> StubResponse {
        var copy = self
        copy.fault = .dropped(afterBytes: bytes)
        return copy
    }

    /// The same response with its body cut in half, so it no longer parses (``StubFault/malformed``).
    public func malformed() -> StubResponse {
        var copy = self
        copy.fault = .malformed
        return copy
    }
}

/// A simulated transport failure.
public struct StubFault: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Sendable, Hashable {
        case error(URLError.Code)
        case dropped(Int)
        case malformed
    }

    let storage: Storage

    /// The request timed out (`URLError.timedOut`).
    public static let timedOut = StubFault(storage: .error(.timedOut))
    /// The device is offline (`URLError.notConnectedToInternet`).
    public static let notConnectedToInternet = StubFault(storage: .error(.notConnectedToInternet))
    /// The connection was lost before any response (`URLError.networkConnectionLost`).
    public static let networkConnectionLost = StubFault(storage: .error(.networkConnectionLost))
    /// DNS found no such host (`URLError.cannotFindHost`).
    public static let cannotFindHost = StubFault(storage: .error(.cannotFindHost))
    /// The server refused the connection (`URLError.cannotConnectToHost`).
    public static let cannotConnectToHost = StubFault(storage: .error(.cannotConnectToHost))
    /// Any other `URLError`.
    public static func urlError(_ code: URLError.Code) -> StubFault { StubFault(storage: .error(code)) }

    /// The fault a fixture's `metadata.fault` names (one of `FixtureMetadata.knownFaults`).
    static func named(_ name: String) -> StubFault? {
        switch name {
        case "timedOut": return .timedOut
        case "notConnectedToInternet": return .notConnectedToInternet
        case "networkConnectionLost": return .networkConnectionLost
        case "cannotFindHost": return .cannotFindHost
        case "cannotConnectToHost": return .cannotConnectToHost
        default: return nil
        }
    }
    /// The status, headers and the first `bytes` bytes of the body arrive, then the connection is lost
    /// (`URLError.networkConnectionLost`).
    public static func dropped(afterBytes bytes: Int) -> StubFault {
        StubFault(storage: .dropped(max(0, bytes)))
    }
    /// The response arrives whole, but its body is cut in half (a JSON decoder fails on it).
    public static let malformed = StubFault(storage: .malformed)

    public var description: String {
        switch storage {
        case .error(let code): return "URLError(\(code.rawValue))"
        case .dropped(let bytes): return "connection dropped after \(bytes) bytes"
        case .malformed: return "malformed body"
        }
    }
}
