public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Whether contract tests run against the stubs or the real API.
///
/// With `APIPROBE_LIVE=1` (or `withContractTesting(live: true)`, or the `.contractTesting(live: true)`
/// trait) the same tests bypass the stubs, so they double as live checks. Build the app's client from
/// ``sessionConfiguration(stubbed:)``:
///
/// ```swift
/// let stubs = StubSet()
/// try stubs.stubAll(from: FixtureStore(relativeTo: #filePath), in: "recipes")
/// let configuration = try ContractEnvironment.current().sessionConfiguration(stubbed: stubs.sessionConfiguration())
/// let page = try await requireDecoding(SearchResponse.self, fromResponseTo: request, configuration: configuration)
/// ```
public struct ContractEnvironment: Sendable, Hashable {
    /// Whether requests go to the real API.
    public var isLive: Bool

    public init(isLive: Bool) {
        self.isLive = isLive
    }

    /// The environment in force: the innermost scope's `live:`, else `APIPROBE_LIVE` (`1`, `true`, `yes`
    /// → live; `0`, `false`, `no` or unset → stubs).
    ///
    /// - Throws: ``ContractConfigurationError`` when `APIPROBE_LIVE` holds another value.
    public static func current(
        scope: Bool? = ContractTestingConfiguration.current.live,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ContractConfigurationError) -> ContractEnvironment {
        if let scope { return ContractEnvironment(isLive: scope) }
        guard let value = environment["APIPROBE_LIVE"]?.trimmingCharacters(in: .whitespaces).lowercased(),
            !value.isEmpty
        else {
            return ContractEnvironment(isLive: false)
        }
        switch value {
        case "1", "true", "yes": return ContractEnvironment(isLive: true)
        case "0", "false", "no": return ContractEnvironment(isLive: false)
        default:
            throw ContractConfigurationError(
                variable: "APIPROBE_LIVE", expected: "1, true or yes (live) or 0, false or no (stubbed)",
                found: "\"\(value)\"")
        }
    }

    /// The stubs' configuration, or `.ephemeral` (no stubs, no cache, no cookies) in live mode; the stub
    /// configuration is not even made in live mode.
    public func sessionConfiguration(stubbed: @autoclosure () throws -> URLSessionConfiguration) rethrows
        -> URLSessionConfiguration
    {
        isLive ? .ephemeral : try stubbed()
    }
}

/// A request that did not produce a 2xx response.
///
/// It failed in transport or the server answered with an error status. Reported as such, never as a
/// decoding error.
///
/// ```
/// live request GET http://127.0.0.1:8080/api/search?q=soup failed: Could not connect to the server.
/// stubbed request GET https://api.example.com/api/get: expected a 2xx response, found 404 {"error":{"message":"unknown id"}}
/// ```
public struct RequestFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// `GET https://…`.
    public var request: String
    /// Whether the request went to the real API.
    public var isLive: Bool
    /// The HTTP status, when a response came back.
    public var status: Int?
    /// The transport error, or the start of the response body.
    public var detail: String

    public init(request: String, isLive: Bool, status: Int?, detail: String) {
        self.request = request
        self.isLive = isLive
        self.status = status
        self.detail = detail
    }

    public var description: String {
        let kind = isLive ? "live request" : "stubbed request"
        if let status { return "\(kind) \(request): expected a 2xx response, found \(status) \(detail)" }
        return "\(kind) \(request) failed: \(detail)"
    }
}

/// Sends `request` through a session made from `configuration` and decodes `type` from the 2xx response.
///
/// - Throws: ``RequestFailure`` when the request fails or the status is not 2xx; `InputError` (HTTPFixtures)
///   when the body does not decode (named `GET <url>` in the message).
public func requireDecoding<T: Decodable>(
    _ type: T.Type,
    fromResponseTo request: URLRequest,
    configuration: URLSessionConfiguration,
    at pointer: String = "",
    decoder: JSONDecoder? = nil,
    environment: ContractEnvironment? = nil
) async throws -> T {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let isLive = try environment?.isLive ?? ContractEnvironment.current().isLive
    let body = try await responseBody(of: request, configuration: configuration, isLive: isLive)
    let name = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?")"
    return try requireDecoding(type, from: body, named: name, at: pointer, decoder: decoder)
}

/// Sends `request` through a session made from `configuration` and checks that `type` decodes from the
/// response; a failed request and a decoding failure are recorded (each for what it is) and the test goes on.
///
/// ```swift
/// await expectDecoding(SearchResponse.self, fromResponseTo: URLRequest(url: searchURL), configuration: configuration)
/// ```
@discardableResult
public func expectDecoding<T: Decodable>(
    _ type: T.Type,
    fromResponseTo request: URLRequest,
    configuration: URLSessionConfiguration,
    at pointer: String = "",
    decoder: JSONDecoder? = nil,
    environment: ContractEnvironment? = nil,
    fileID: StaticString = #fileID,
    filePath: StaticString = #filePath,
    line: UInt = #line,
    column: UInt = #column
) async -> T? {
    let decoder = ContractTestingConfiguration.decoder(decoder)
    let site = CallSite(fileID: fileID, filePath: filePath, line: line, column: column)
    do {
        return try await requireDecoding(
            type, fromResponseTo: request, configuration: configuration, at: pointer, decoder: decoder,
            environment: environment)
    } catch {
        reportFailure("\(error)", at: site)
        return nil
    }
}

func responseBody(of request: URLRequest, configuration: URLSessionConfiguration, isLive: Bool)
    async throws(RequestFailure) -> Data
{
    let name = "\(request.httpMethod ?? "GET") \(request.url?.absoluteString ?? "?")"
    let session = URLSession(configuration: configuration)
    defer { session.finishTasksAndInvalidate() }
    let data: Data
    let response: URLResponse
    do {
        (data, response) = try await session.data(for: request)
    } catch {
        throw RequestFailure(request: name, isLive: isLive, status: nil, detail: error.localizedDescription)
    }
    guard let http = response as? HTTPURLResponse else {
        throw RequestFailure(request: name, isLive: isLive, status: nil, detail: "the response is not HTTP")
    }
    guard (200..<300).contains(http.statusCode) else {
        let text = String(decoding: data.prefix(200), as: UTF8.self)
        throw RequestFailure(request: name, isLive: isLive, status: http.statusCode, detail: text)
    }
    return data
}
