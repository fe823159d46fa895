public import Foundation
public import HTTPFixtures

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An outgoing request as the stub layer sees it: what matchers compare and what the request log keeps.
public struct StubRequest: Sendable, Hashable {
    /// `GET`, `POST`, …
    public var method: String
    /// The request's URL. Setting it reads the path, query, host, scheme and port again.
    public var url: URL {
        get { location.url }
        set {
            location = .url(newValue)
            (path, queryItems, host, scheme, port) = Self.parts(of: newValue)
        }
    }
    /// The URL, or for a request a server received, its text, parsed only when ``url`` is read (a server that
    /// matches by the parts below never reads it).
    private(set) var location: Location
    package enum Location: Sendable {
        case url(URL)
        case text(String)

        var url: URL {
            switch self {
            case .url(let url): return url
            // The text of a URL a server received (``init(method:origin:target:headers:body:)``) is made of a
            // parsed origin and a target of characters a URL keeps as written: it parses. The fallback is never
            // taken; it is there so that no request can trap a server.
            case .text(let text): return URL(string: text) ?? URL(string: "about:blank")!
            }
        }

        /// The URL's text: what two requests compare (a URL a server received is compared without being parsed).
        var text: String {
            switch self {
            case .url(let url): return url.absoluteString
            case .text(let text): return text
            }
        }
    }
    /// The URL's path, `/` when empty (read from the URL once: matchers consult it for every stub).
    public private(set) var path: String
    /// The query items of the URL, in order.
    public private(set) var queryItems: [URLQueryItem]
    /// The URL's host and scheme, lowercased (read once, as `path` is: most stubs compare them).
    private(set) var host: String?
    private(set) var scheme: String?
    /// The URL's port, when it names one.
    private(set) var port: Int?
    /// The header fields, names as sent; every lookup ignores case (`headers["X-API-Key"]` finds `x-api-key`).
    public var headers: HeaderFields
    /// The body, read from `httpBody` or `httpBodyStream`; `nil` when the request had none or when
    /// Foundation hid it from the protocol (a body given to `upload(for:from:)` on Linux).
    public var body: Data?

    public init(method: String = "GET", url: URL, headers: HeaderFields = [:], body: Data? = nil) {
        self.method = asciiUppercased(method)
        location = .url(url)
        (path, queryItems, host, scheme, port) = Self.parts(of: url)
        self.headers = headers
        self.body = body
    }

    /// A request with Foundation's header dictionary (as `URLRequest.allHTTPHeaderFields` holds it).
    public init(method: String = "GET", url: URL, headers: [String: String], body: Data? = nil) {
        self.init(method: method, url: url, headers: HeaderFields(headers), body: body)
    }

    init(_ request: URLRequest) {
        self.method = request.httpMethod.map(asciiUppercased) ?? "GET"
        let url = request.url ?? URL(string: "about:blank")!
        location = .url(url)
        (path, queryItems, host, scheme, port) = Self.parts(of: url)
        self.headers = HeaderFields(request.allHTTPHeaderFields ?? [:])
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

    /// The value of a header, looked up without regard to case (the same as `headers[name]`).
    public func header(_ name: String) -> String? {
        headers[name]
    }

    /// Reads the parts from the URL's own parse; only a URL with a query is parsed again, by
    /// `URLComponents`, for its items (parsing every URL again was a measurable part of a stubbed request).
    private static func parts(
        of url: URL
    ) -> (path: String, queryItems: [URLQueryItem], host: String?, scheme: String?, port: Int?) {
        var items: [URLQueryItem] = []
        if url.query(percentEncoded: true) != nil {
            items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        }
        // The host as written, decoded only when it holds an escape: `url.host` decodes every time, and a
        // request's parts are read for every stubbed request.
        var host = url.host(percentEncoded: true)
        if let written = host, written.utf8.contains(UInt8(ascii: "%")) { host = written.removingPercentEncoding }
        return (
            decodedPath(url.path(percentEncoded: true)), items, host.map(asciiLowercased),
            url.scheme.map(asciiLowercased), url.port
        )
    }

    /// The path matchers compare: `/` for an empty one, percent-decoded when it holds an escape.
    private static func decodedPath(_ encoded: String) -> String {
        if encoded.isEmpty { return "/" }
        guard encoded.utf8.contains(UInt8(ascii: "%")) else { return encoded }
        return encoded.removingPercentEncoding ?? encoded
    }

    /// The parts of a server's origin (`https://api.example.com`, perhaps with a base path), read once, so that
    /// each request a server receives (``init(method:origin:target:headers:body:)``) is not parsed again.
    package struct Origin: Sendable {
        /// The origin's text, without a final `/`: a request's URL is this text followed by its target.
        let text: String
        let encodedPath: String
        let host: String?
        let scheme: String?
        let port: Int?

        /// `nil` for a URL with a query or a fragment, which a request's target is not simply appended to.
        package init?(_ url: URL) {
            guard url.query(percentEncoded: true) == nil, url.fragment(percentEncoded: true) == nil else { return nil }
            let path = url.path(percentEncoded: true)
            encodedPath = path.hasSuffix("/") ? String(path.dropLast()) : path
            let parts = StubRequest.parts(of: url)
            (host, scheme, port) = (parts.host, parts.scheme, parts.port)
            text = Self.text(of: url)
        }

        /// A server's origin as text a request's target is appended to: the URL without its final `/`.
        package static func text(of url: URL) -> String {
            let text = url.absoluteString
            return text.hasSuffix("/") ? String(text.dropLast()) : text
        }
    }

    /// A request a server received for `target` (origin-form, `/items/1?page=2`) on a server standing for
    /// `origin`: the same parts as ``init(method:url:headers:body:)`` reads from the URL made of `origin`'s text
    /// followed by `target`, taken from the origin (read once) and the target's text, and that URL parsed only if
    /// ``url`` is read. `nil` when the target is not simply appended (it does not start with `/`, or holds a byte a
    /// URL would encode or a fragment): the caller parses the URL and uses the other initializer.
    package init?(method: String, origin: Origin, target: String, headers: HeaderFields, body: Data?) {
        guard Self.isKeptAsWritten(target) else { return nil }
        self.init(method: method, origin: origin, keptTarget: target, headers: headers, body: body)
    }

    /// ``init(method:origin:target:headers:body:)`` for a target already known to be kept as written
    /// (``isKeptAsWritten(_:)``): a server that checks it first builds the request only when it needs it.
    package init(method: String, origin: Origin, keptTarget target: String, headers: HeaderFields, body: Data?) {
        let bytes = target.utf8
        let query = bytes.firstIndex(of: UInt8(ascii: "?"))
        self.method = asciiUppercased(method)
        location = .text(origin.text + target)
        let targetPath = query.map { String(target[..<$0]) } ?? target
        path = Self.decodedPath(origin.encodedPath.isEmpty ? targetPath : origin.encodedPath + targetPath)
        // The items as URLComponents reads them from a URL (`+` kept, escapes decoded), from the query alone.
        queryItems = query.flatMap { URLComponents(string: String(target[$0...]))?.queryItems } ?? []
        (host, scheme, port) = (origin.host, origin.scheme, origin.port)
        self.headers = headers
        self.body = body
    }

    /// Whether two requests have the same method, URL (compared as text), headers and body.
    public static func == (left: StubRequest, right: StubRequest) -> Bool {
        left.method == right.method && left.location.text == right.location.text && left.headers == right.headers
            && left.body == right.body
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(location.text)
        hasher.combine(headers)
        hasher.combine(body)
    }

    /// Whether a server's request target (origin-form) is appended to its origin's text as it is, so that
    /// ``init(method:origin:target:headers:body:)`` reads it without parsing a URL: it starts with `/` and a URL
    /// keeps every byte of it as written.
    package static func isKeptAsWritten(_ target: String) -> Bool {
        target.utf8.first == UInt8(ascii: "/") && keptAsWritten(target.utf8)
    }

    /// Whether a URL keeps a path and query as written: only RFC 3986's unreserved characters and sub-delims,
    /// `:`, `@`, `/`, `?`, and `%` before two hex digits (a URL would encode any other byte, and a lone `%`).
    private static func keptAsWritten(_ bytes: String.UTF8View) -> Bool {
        var escape = 0  // hex digits still expected after a `%`
        for byte in bytes {
            if escape > 0 {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                    UInt8(ascii: "A")...UInt8(ascii: "F"):
                    escape -= 1
                default:
                    return false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"),
                UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","),
                UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"),
                UInt8(ascii: "?"):
                continue
            case UInt8(ascii: "%"):
                escape = 2
            default:
                return false
            }
        }
        return escape == 0
    }
}

/// `text` lowercased, without a copy when it has no ASCII capitals (hosts and schemes rarely do).
func asciiLowercased(_ text: String) -> String {
    text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) ? text.lowercased() : text
}

/// `text` uppercased, without a copy when it has no ASCII lowercase letters (methods rarely do).
func asciiUppercased(_ text: String) -> String {
    text.utf8.contains(where: { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) ? text.uppercased() : text
}
