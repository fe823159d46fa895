public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An outgoing request as the stub layer sees it: what matchers compare and what the request log keeps.
public struct StubRequest: Sendable, Hashable {
    /// `GET`, `POST`, …
    public var method: String
    public var url: URL {
        didSet { (path, queryItems) = Self.parts(of: url) }
    }
    /// The URL's path, `/` when empty (read from the URL once: matchers consult it for every stub).
    public private(set) var path: String
    /// The query items of the URL, in order.
    public private(set) var queryItems: [URLQueryItem]
    /// Header names as sent; look them up with ``header(_:)``.
    public var headers: [String: String]
    /// The body, read from `httpBody` or `httpBodyStream`; `nil` when the request had none or when
    /// Foundation hid it from the protocol (a body given to `upload(for:from:)` on Linux).
    public var body: Data?

    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method.uppercased()
        self.url = url
        (path, queryItems) = Self.parts(of: url)
        self.headers = headers
        self.body = body
    }

    init(_ request: URLRequest) {
        self.method = (request.httpMethod ?? "GET").uppercased()
        self.url = request.url ?? URL(string: "about:blank")!
        (path, queryItems) = Self.parts(of: url)
        self.headers = request.allHTTPHeaderFields ?? [:]
        if let body = request.httpBody {
            self.body = body
        } else if let stream = request.httpBodyStream {
            self.body = Self.read(stream)
        } else {
            self.body = nil
        }
    }

    private static func read(_ stream: InputStream) -> Data {
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }

    /// The value of a header, looked up without regard to case.
    public func header(_ name: String) -> String? {
        headers.first(where: { $0.key.caseInsensitiveCompare(name) == .orderedSame })?.value
    }

    private static func parts(of url: URL) -> (path: String, queryItems: [URLQueryItem]) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let encoded = components?.percentEncodedPath ?? url.path
        let path = encoded.isEmpty ? "/" : (encoded.removingPercentEncoding ?? encoded)
        return (path, components?.queryItems ?? [])
    }
}
