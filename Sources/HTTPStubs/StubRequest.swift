public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An outgoing request as the stub layer sees it: what matchers compare and what the request log keeps.
public struct StubRequest: Sendable, Hashable {
    /// `GET`, `POST`, …
    public var method: String
    public var url: URL
    /// Header names as sent; look them up with ``header(_:)``.
    public var headers: [String: String]
    /// The body, read from `httpBody` or `httpBodyStream`; `nil` when the request had none or when
    /// Foundation hid it from the protocol (a body given to `upload(for:from:)` on Linux).
    public var body: Data?

    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
    }

    init(_ request: URLRequest) {
        self.method = (request.httpMethod ?? "GET").uppercased()
        self.url = request.url ?? URL(string: "about:blank")!
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

    /// The query items of the URL, in order.
    public var queryItems: [URLQueryItem] {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
    }

    /// The URL's path, `/` when empty.
    public var path: String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
        return path.isEmpty ? "/" : (path.removingPercentEncoding ?? path)
    }
}
