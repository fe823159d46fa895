import APIProbeShared
public import Foundation

/// One recorded HTTP exchange: the request, the response, and how it was recorded.
///
/// It is stored as `Stubs/<api>/<name>.json`. A JSON body is stored inline as JSON (so a reviewer reads a
/// fixture change in a pull request), other bodies as text or base64. Keys are sorted and indented by two
/// spaces, with a trailing newline, so re-writing an unchanged exchange changes no byte.
///
/// ```swift
/// let store = try FixtureStore(relativeTo: #filePath)
/// let exchange = try store.exchange(named: "recipes/search")
/// exchange.response.status  // 200
/// ```
public struct Exchange: Sendable, Hashable {
    public var request: RecordedRequest
    public var response: RecordedResponse
    public var metadata: FixtureMetadata

    public init(request: RecordedRequest, response: RecordedResponse, metadata: FixtureMetadata = FixtureMetadata()) {
        self.request = request
        self.response = response
        self.metadata = metadata
    }
}

/// The request half of an ``Exchange``: what a matcher compares an outgoing request with.
public struct RecordedRequest: Sendable, Hashable {
    /// `GET`, `POST`, …, upper case.
    public var method: String
    /// The absolute URL, query included.
    public var url: String
    /// The headers that matter; names as recorded, repeats kept.
    public var headers: HeaderFields
    public var body: FixtureBody?

    public init(method: String = "GET", url: String, headers: HeaderFields = [:], body: FixtureBody? = nil) {
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The response half of an ``Exchange``.
public struct RecordedResponse: Sendable, Hashable {
    public var status: Int
    /// The headers, names as recorded; a repeated field (`Set-Cookie` once per cookie) keeps each value.
    public var headers: HeaderFields
    public var body: FixtureBody?

    public init(status: Int = 200, headers: HeaderFields = [:], body: FixtureBody? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The value of a header, looked up without regard to case (the values of a repeated one joined with `", "`).
    public func header(_ name: String) -> String? {
        headers[name]
    }
}

extension RecordedRequest {
    /// The value of a header, looked up without regard to case (the values of a repeated one joined with `", "`).
    public func header(_ name: String) -> String? {
        headers[name]
    }
}

/// A message body as stored in a fixture.
public enum FixtureBody: Sendable, Hashable {
    /// A JSON document, stored inline.
    case json(JSONValue)
    /// UTF-8 text, stored as a JSON string.
    case text(String)
    /// Any other bytes, stored as base64.
    case binary(Data)

    /// The bytes sent on the wire (a JSON body compact, as a server sends it).
    public var data: Data {
        switch self {
        case .json(let value): return value.serialized()
        case .text(let text): return Data(text.utf8)
        case .binary(let data): return data
        }
    }

    /// A body for received bytes: JSON when the bytes parse as JSON (and the content type does not say
    /// otherwise), text when they are UTF-8, binary otherwise.
    public init(bytes: Data, contentType: String? = nil) {
        let type = contentType?.lowercased() ?? ""
        let mayBeJSON = type.isEmpty || type.contains("json") || type.hasPrefix("text/plain")
        if mayBeJSON, !bytes.isEmpty, let value = try? JSONValue(parsing: bytes) {
            self = .json(value)
        } else if let text = String(data: bytes, encoding: .utf8) {
            self = .text(text)
        } else {
            self = .binary(bytes)
        }
    }
}

/// How and when an exchange was recorded, and how it answers when it is served.
public struct FixtureMetadata: Sendable, Hashable {
    /// RFC 3339 time of recording.
    public var recordedAt: String?
    /// The apiprobe version that wrote the file.
    public var apiprobeVersion: String?
    /// What was redacted, as places: `request.headers.Authorization`, `request.query.api_key`,
    /// `response.body/user/token`.
    public var redactions: [String]
    /// Where the exchange came from: `record`, `har`, `manual`.
    public var source: String?
    /// Which requests the fixture answers, beyond its recorded method, URL and query (`"match"`); `nil` for the
    /// recorded request exactly.
    public var match: FixtureMatch?
    /// How long the answer takes when it is served (`"latency": "250ms"`), by the stubs and `apiprobe serve`.
    public var latency: Duration?
    /// A transport failure served instead of the response (`"fault": "timedOut"`): one of ``knownFaults``.
    /// `apiprobe serve` drops the connection without an answer (after the latency; `timedOut` holds it first).
    public var fault: String?
    /// The fixture's place in a state machine: the state it requires, the one it moves to (`nil` when it has
    /// none; set on the value).
    public var state: FixtureState?
    /// Whether the response's body and headers are templates filled from the request (`"template": true`):
    /// `{{request.path.id}}`, `{{request.query.q}}`, `{{request.header.X-Trace}}`, `{{request.body/items/0/sku}}`,
    /// `{{request.method}}`, `{{request.id}}`. The fixture file format article lists the rules.
    public var template: Bool

    /// The faults a fixture can name, as `URLError` codes are named.
    public static let knownFaults = [
        "timedOut", "notConnectedToInternet", "networkConnectionLost", "cannotFindHost", "cannotConnectToHost",
    ]

    public init(
        recordedAt: String? = nil, apiprobeVersion: String? = nil, redactions: [String] = [], source: String? = nil,
        match: FixtureMatch? = nil, latency: Duration? = nil, fault: String? = nil
    ) {
        self.recordedAt = recordedAt
        self.apiprobeVersion = apiprobeVersion
        self.redactions = redactions
        self.source = source
        self.match = match
        self.latency = latency
        self.fault = fault
        self.state = nil
        self.template = false
    }
}

/// Which requests a fixture answers, beyond its recorded method, URL and query: a fixture's `metadata.match`.
///
/// ```json
/// "match": {"path": "/api/recipes/{id}", "query": "ignore", "headers": {"Accept-Language": "fr"}, "body": "exact"}
/// "match": {"pathPattern": "^/api/recipes/[0-9]+$", "queryPatterns": {"q": "^chick"},
///           "headerPatterns": {"User-Agent": "MyApp/"}, "cookies": {"session": "abc"},
///           "bodyPointers": {"/items/0/sku": "A-1"}, "priority": 1}
/// ```
///
/// Every condition must hold. Patterns are ECMA-262 regular expressions (the dialect of JSON Schema's `pattern`),
/// searched in the value: anchor them with `^…$` for a whole match. The stubs (`HTTPStubs`) and `apiprobe serve`
/// read it alike.
public struct FixtureMatch: Sendable, Hashable {
    /// How the query is compared with the recorded one.
    public enum Query: String, Sendable, Hashable, CaseIterable {
        /// The recorded items and no others, in any order (the default); a redacted value matches any value.
        case exact
        /// At least the recorded items; others may come too.
        case contains
        /// Any query.
        case ignore
    }

    /// How the body is compared with the recorded one.
    public enum Body: String, Sendable, Hashable, CaseIterable {
        /// Any body (the default).
        case any
        /// The recorded body: equal as JSON values for a JSON body, byte for byte otherwise; none when none was
        /// recorded.
        case exact
        /// A JSON body holding at least the recorded one: each recorded member at its place with its value (arrays
        /// item by item, of the same length), other members allowed. WireMock's `equalToJson` with
        /// `ignoreExtraElements`.
        case contains
    }

    /// A path template (`/api/recipes/{id}`, each `{name}` one non-empty segment) in place of the recorded path.
    public var path: String?
    /// An ECMA-262 pattern the path (percent-encoded, as sent) must match, in place of the recorded path.
    public var pathPattern: String?
    public var query: Query
    /// Query items whose value must match a pattern, by name. Such an item is compared by its pattern alone (its
    /// recorded value, if any, is not required).
    public var queryPatterns: [String: String]
    /// Headers the request must carry with these values (names in any case).
    public var headers: HeaderFields
    /// Headers whose value must match a pattern, by name (any case).
    public var headerPatterns: [String: String]
    /// Cookies (of the `Cookie` header) the request must carry with these values.
    public var cookies: [String: String]
    public var body: Body
    /// Values the JSON body must hold at these JSON Pointers (equal as JSON values): a partial match on the body.
    public var bodyPointers: [String: JSONValue]
    /// Which fixture answers when several match: the lowest number first (WireMock's convention: 1 is the
    /// highest); a fixture without one counts as ``defaultPriority``. Among equals, the one added last (a
    /// scenario's over the common fixtures, a later recording over an earlier one).
    public var priority: Int?

    /// The priority of a fixture that names none.
    public static let defaultPriority = 5

    /// The conditions of the first fixture format; the others (patterns, cookies, body pointers, a priority) are
    /// set on the value.
    public init(path: String? = nil, query: Query = .exact, headers: HeaderFields = [:], body: Body = .any) {
        self.path = path
        self.pathPattern = nil
        self.query = query
        self.queryPatterns = [:]
        self.headers = headers
        self.headerPatterns = [:]
        self.cookies = [:]
        self.body = body
        self.bodyPointers = [:]
        self.priority = nil
    }
}

/// A fixture's place in a state machine (`metadata.state`), WireMock's scenario states: the fixture answers only
/// while its machine is in ``requires`` (any state when `nil`), and answering moves the machine to ``next``.
///
/// ```json
/// "state": {"name": "cart", "requires": "start", "next": "one item"}
/// ```
///
/// Every machine starts in ``initial``; a reset (`StubSet.resetStates()`, `POST /__apiprobe/reset`) returns
/// every machine there. So "add to cart, then the cart has one item" needs no call from the test.
public struct FixtureState: Sendable, Hashable {
    /// The state every machine starts in.
    public static let initial = "start"

    /// The machine's name; fixtures naming the same one share it.
    public var name: String
    public var requires: String?
    public var next: String?

    public init(name: String = "default", requires: String? = nil, next: String? = nil) {
        self.name = name
        self.requires = requires
        self.next = next
    }
}
