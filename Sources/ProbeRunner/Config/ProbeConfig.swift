public import Foundation
public import HTTPFixtures

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A probe configuration: what `apiprobe run` checks and `apiprobe record` records (`apiprobe.yml`, README).
///
/// Read one with ``ProbeConfig/load(contentsOf:environment:)``; `${VAR}` and `${VAR:-default}` are
/// replaced from the environment before anything else is read.
public struct ProbeConfig: Sendable, Hashable {
    /// The file it was read from, as shown in messages (`apiprobe.yml`).
    public var file: String
    /// The API's name: fixtures go to `Stubs/<api>/`, snapshots are `Snapshots/<api>/<endpoint>.schema.json`.
    public var api: String
    /// Relative paths and endpoint paths resolve against it.
    public var baseURL: URL?
    /// The folders of fixtures and snapshots, relative to the config file's folder.
    public var stubsDirectory: String
    public var snapshotsDirectory: String
    /// Values every endpoint starts from.
    public var defaults: EndpointDefaults
    public var endpoints: [EndpointConfig]
    /// How many requests are in flight at once across all endpoints.
    public var concurrency: Int
    /// The most requests a second sent to one host (`nil`: no limit); the config accepts ``rateLimitRange``.
    public var requestsPerSecondPerHost: Double?
    /// The longest a whole run may take; endpoints not finished by then fail as timed out.
    public var deadline: Duration
    /// How many consecutive failed rounds make an endpoint count as down (flapping damper).
    public var downAfter: Int
    /// How many consecutive passing rounds make a down endpoint recovered (the recovery alert's damper).
    public var successThreshold: Int = 1
    /// Where state changes (down, recovered) are announced.
    public var alerts: [AlertTarget] = []
    /// Latency regression detection against the history file.
    public var regression: RegressionPolicy
    /// When every endpoint is expected to be unavailable: rounds then do not probe it (``MaintenanceWindow``).
    public var maintenance: [MaintenanceWindow] = []
    /// JSON body fields redacted when recording, beside the default header and query redactions.
    public var redactBodyFields: [String]
    /// The values substituted from the environment, each with its variable's name: the run's secrets.
    package var environmentSecrets: [String: String] = [:]

    public init(
        file: String = "apiprobe.yml",
        api: String = "api",
        baseURL: URL? = nil,
        stubsDirectory: String = "Stubs",
        snapshotsDirectory: String = "Snapshots",
        defaults: EndpointDefaults = EndpointDefaults(),
        endpoints: [EndpointConfig] = [],
        concurrency: Int = 8,
        requestsPerSecondPerHost: Double? = nil,
        deadline: Duration = .seconds(300),
        downAfter: Int = 1,
        regression: RegressionPolicy = RegressionPolicy(),
        redactBodyFields: [String] = []
    ) {
        self.file = file
        self.api = api
        self.baseURL = baseURL
        self.stubsDirectory = stubsDirectory
        self.snapshotsDirectory = snapshotsDirectory
        self.defaults = defaults
        self.endpoints = endpoints
        self.concurrency = concurrency
        self.requestsPerSecondPerHost = requestsPerSecondPerHost
        self.deadline = deadline
        self.downAfter = downAfter
        self.regression = regression
        self.redactBodyFields = redactBodyFields
    }

    /// The rates `rateLimit` accepts, in requests per second per host.
    public static let rateLimitRange: ClosedRange<Double> = 0.001...100_000

    /// The largest response body `apiprobe run` reads when the config names none (8 MiB); a larger one fails
    /// the sample as `body-too-large`.
    public static let defaultRunBodyLimit = 8 << 20

    /// The largest response body `apiprobe record` reads when the config names none (64 MiB).
    public static let defaultRecordBodyLimit = 64 << 20
}

/// What every endpoint starts from unless it says otherwise.
public struct EndpointDefaults: Sendable, Hashable {
    public var headers: [String: String]
    public var samples: Int
    public var timeout: Duration
    public var retries: Int
    /// The largest response body read, in bytes (`nil`: the command's default).
    public var maxBodySize: Int?
    /// `tls:` settings every endpoint starts from (an endpoint's own `tls:` keys replace these key by key).
    public var tls = TLSSettings()
    public var expectations: Expectations

    public init(
        headers: [String: String] = [:],
        samples: Int = 1,
        timeout: Duration = .seconds(10),
        retries: Int = 0,
        maxBodySize: Int? = nil,
        expectations: Expectations = Expectations()
    ) {
        self.headers = headers
        self.samples = samples
        self.timeout = timeout
        self.retries = retries
        self.maxBodySize = maxBodySize
        self.expectations = expectations
    }
}

/// One endpoint to probe (or record): the request, how often, and what must hold.
public struct EndpointConfig: Sendable, Hashable {
    /// Unique in a config; names the fixture (`Stubs/<api>/<name>.json`) and the snapshot.
    public var name: String
    public var method: String
    /// An absolute URL, or a path resolved against the config's base URL.
    public var path: String
    /// Query items in order; added to those already in `path`.
    public var query: [QueryItem]
    public var headers: [String: String]
    public var body: RequestBody?
    public var samples: Int
    public var timeout: Duration
    /// Retries after a transport error (never after an HTTP status), with backoff.
    public var retries: Int
    /// The largest response body read, in bytes (`nil`: ``ProbeConfig/defaultRunBodyLimit`` for `run`,
    /// ``ProbeConfig/defaultRecordBodyLimit`` for `record`); a larger body fails as `body-too-large`.
    public var maxBodySize: Int?
    /// Whether a 3xx response with a `Location` is followed (the default); `false` makes the 3xx the answer, so
    /// `status: 301` can be expected.
    public var followsRedirects: Bool = true
    /// `tls:`: the certificate's expiry budget, a CA file, a client certificate (mTLS), `insecure`.
    public var tls = TLSSettings()
    /// How often the endpoint is probed (`interval: 1h`), when less often than every round: a round probes it
    /// only when this long has passed since it was last probed (by this process, or as the history file
    /// says), so a cron job every 5 minutes can check a certificate hourly. `nil`: every round.
    public var interval: Duration?
    /// This endpoint's own maintenance windows, beside the config's.
    public var maintenance: [MaintenanceWindow] = []
    /// `dns:`: the question a `dns://` endpoint asks (`nil` for other kinds).
    public var dns: DNSQuery?
    public var expectations: Expectations
    /// Where the endpoint is in the config file, for messages (`.file` when built in code).
    public var position: SourcePosition

    public init(
        name: String,
        method: String = "GET",
        path: String,
        query: [QueryItem] = [],
        headers: [String: String] = [:],
        body: RequestBody? = nil,
        samples: Int = 1,
        timeout: Duration = .seconds(10),
        retries: Int = 0,
        maxBodySize: Int? = nil,
        expectations: Expectations = Expectations(),
        position: SourcePosition = .file
    ) {
        self.name = name
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.samples = samples
        self.timeout = timeout
        self.retries = retries
        self.maxBodySize = maxBodySize
        self.expectations = expectations
        self.position = position
    }

    /// What the endpoint probes, told by its URL's scheme (see ``ProbeKind``).
    public var kind: ProbeKind { ProbeKind(url: path) }

    /// The endpoint's URL: `path` resolved against `baseURL`, with `query` appended.
    ///
    /// - Throws: ``InputError`` when the result is not an absolute http(s) URL, or a `tcp://` or `tls://`
    ///   URL with a host and a port and nothing else, or a `dns://` URL with at most a server and a port.
    public func url(baseURL: URL?, file: String = "apiprobe.yml") throws(InputError) -> URL {
        if kind != .http { return try socketURL(file: file) }
        let resolved: URL?
        if let absolute = URL(string: path), absolute.scheme != nil {
            resolved = absolute
        } else if let baseURL {
            let base =
                baseURL.absoluteString.hasSuffix("/")
                ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
            resolved = URL(string: base + (path.hasPrefix("/") ? path : "/" + path))
        } else {
            resolved = nil
        }
        guard let resolved, let scheme = resolved.scheme?.lowercased(), scheme == "http" || scheme == "https",
            var components = URLComponents(url: resolved, resolvingAgainstBaseURL: true), components.host != nil
        else {
            throw InputError(
                file: file,
                position: position,
                key: "endpoints.\(name).path",
                expected: baseURL == nil
                    ? "an absolute http(s) URL, or a path with a baseURL" : "a path or an absolute http(s) URL",
                found: "\"\(path)\""
            )
        }
        if !query.isEmpty {
            components.queryItems =
                (components.queryItems ?? []) + query.map { URLQueryItem(name: $0.name, value: $0.value) }
        }
        guard let url = components.url else {
            throw InputError(
                file: file, position: position, key: "endpoints.\(name).query", expected: "query items that form a URL",
                found: "\(query)")
        }
        return url
    }

    /// A `tcp://`, `tls://` or `dns://` URL, checked.
    private func socketURL(file: String) throws(InputError) -> URL {
        let expected =
            kind == .dns
            ? "dns://SERVER[:PORT] (or dns:// for the system's resolver), the name in dns.name"
            : "\(kind.rawValue)://HOST:PORT, with no path or query"
        let components = URLComponents(string: path)
        guard let components, let url = components.url, components.user == nil, components.password == nil,
            components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            (components.port ?? 1) > 0
        else {
            throw InputError(
                file: file, position: position, key: "endpoints.\(name).url", expected: expected, found: "\"\(path)\"")
        }
        if kind != .dns, (components.host ?? "").isEmpty || components.port == nil {
            throw InputError(
                file: file, position: position, key: "endpoints.\(name).url", expected: expected, found: "\"\(path)\"")
        }
        return url
    }

    /// The request this endpoint sends: method, URL, headers (defaults already merged by the loader), body.
    public func makeRequest(baseURL: URL?, file: String = "apiprobe.yml") throws(InputError) -> URLRequest {
        var request = URLRequest(url: try url(baseURL: baseURL, file: file), timeoutInterval: timeout.timeInterval)
        request.httpMethod = method.uppercased()
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        switch body {
        case .json(let value)?:
            request.httpBody = value.serialized(sortedKeys: true)
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        case .text(let text)?:
            request.httpBody = Data(text.utf8)
        case nil:
            break
        }
        request.cachePolicy = .reloadIgnoringLocalCacheData
        return request
    }
}

/// One query item, kept in order.
public struct QueryItem: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// A request body: JSON (sent as `application/json` unless the headers say otherwise) or text.
public enum RequestBody: Sendable, Hashable {
    case json(JSONValue)
    case text(String)
}

/// What must hold for an endpoint to pass.
public struct Expectations: Sendable, Hashable {
    /// Accepted statuses (default: any 2xx).
    public var status: StatusExpectation
    public var headers: [HeaderExpectation]
    public var body: [BodyCondition]
    /// The schema snapshot the body must conform to (`nil`: none checked).
    public var schema: SchemaExpectation?
    public var latency: [LatencyBudget]
    /// A `dns://` endpoint's accepted response codes (`rcode:`; default `NOERROR`).
    public var rcodes: [DNSResponseCode]
    /// Values a `dns://` endpoint's answer must hold, each among its records (`answers:`), as `dig +short`
    /// writes them: `127.0.0.1`, `10 mail.example.com`, `v=spf1 -all`.
    public var answers: [String]

    public init(
        status: StatusExpectation = .success,
        headers: [HeaderExpectation] = [],
        body: [BodyCondition] = [],
        schema: SchemaExpectation? = nil,
        latency: [LatencyBudget] = [],
        rcodes: [DNSResponseCode] = [.noError],
        answers: [String] = []
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.schema = schema
        self.latency = latency
        self.rcodes = rcodes
        self.answers = answers
    }
}

/// Accepted statuses: codes and ranges (`200`, `[200, 204]`, `200-299`, `2xx`).
public struct StatusExpectation: Sendable, Hashable, CustomStringConvertible {
    public var ranges: [ClosedRange<Int>]

    public init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    public static let success = StatusExpectation(ranges: [200...299])

    public func accepts(_ status: Int) -> Bool { ranges.contains { $0.contains(status) } }

    public var description: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ", ")
    }
}

/// A response header that must be present, equal a value, or match a regular expression.
public struct HeaderExpectation: Sendable, Hashable {
    public enum Rule: Sendable, Hashable {
        case exists
        case equals(String)
        case matches(String)
    }

    public var name: String
    public var rule: Rule

    public init(name: String, rule: Rule) {
        self.name = name
        self.rule = rule
    }
}

/// A condition on the value at a JSON Pointer of the response body: `/count > 0`, `/recipes length >= 1`.
public struct BodyCondition: Sendable, Hashable, CustomStringConvertible {
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
        case exists
        case notExists = "not-exists"
        case matches
        /// Compares the array's (or string's, or object's) length with the operand using `lengthOperator`.
        case length
        /// The body's text holds the operand (`text contains "<title>"`).
        case contains
        /// The body's text does not hold the operand.
        case notContains = "not-contains"
    }

    /// What a condition looks at: the JSON value at ``pointer`` (the default), the body as text (bodies that are
    /// not JSON: `text contains "ok"`, `text matches ^<!doctype`), or its size in bytes (`size < 100KB`).
    public enum Subject: String, Sendable, Hashable {
        case json, text, size
    }

    /// What the condition looks at.
    public var subject: Subject = .json

    /// A JSON Pointer (RFC 6901) into the body; a `*` segment stands for every item of the array there,
    /// and the condition must hold for each (`/recipes/*/title exists`).
    public var pointer: String
    public var op: Operator
    /// The value compared against (`nil` for `exists` / `not-exists`); a regular expression for `matches`.
    public var operand: JSONValue?
    /// For `length`: how the length compares with `operand` (one of the ordering operators or `==`).
    public var lengthOperator: Operator?
    /// As written in the config, for check names: `/count > 0`.
    public var source: String

    public init(
        pointer: String, op: Operator, operand: JSONValue? = nil, lengthOperator: Operator? = nil, source: String? = nil
    ) {
        self.pointer = pointer
        self.op = op
        self.operand = operand
        self.lengthOperator = lengthOperator
        self.source =
            source
            ?? "\(pointer.isEmpty ? "(root)" : pointer) \(op.rawValue)\(operand.map { " \($0.serializedText)" } ?? "")"
    }

    public var description: String { source }
}

/// The endpoint's body must conform to a schema snapshot; drift at or above `failOn` fails the check.
public struct SchemaExpectation: Sendable, Hashable {
    /// The snapshot file, relative to the config's folder (default: `<snapshots>/<api>/<endpoint>.schema.json`).
    public var snapshot: String
    /// A usage manifest that ranks changes at unread paths as info (default: beside the snapshot, when present).
    public var usage: String?
    /// The lowest severity that fails the check: `breaking` (default), `warning` or `info`.
    public var failOn: String

    public init(snapshot: String, usage: String? = nil, failOn: String = "breaking") {
        self.snapshot = snapshot
        self.usage = usage
        self.failOn = failOn
    }
}

/// A latency budget on a percentile: `p95 < 300ms`.
public struct LatencyBudget: Sendable, Hashable, CustomStringConvertible {
    /// 50, 90, 95, 99 (or 100 for the maximum); any value in 0...100 is accepted.
    public var percentile: Double
    public var limit: Duration

    public init(percentile: Double, limit: Duration) {
        self.percentile = percentile
        self.limit = limit
    }

    /// `p95 < 300ms`
    public var description: String {
        let p = percentile == percentile.rounded() ? String(Int(percentile)) : String(percentile)
        return "latency p\(p) < \(formatDuration(limit))"
    }
}

/// How a run's p95 is compared with history.
public struct RegressionPolicy: Sendable, Hashable {
    /// How many earlier runs the baseline is taken over.
    public var window: Int
    /// A p95 above `factor` × the baseline (the median of the window) can be a regression.
    public var factor: Double
    /// Fewer earlier runs than this: no verdict.
    public var minimumRuns: Int
    /// How much slower, at least, a p95 must be than the baseline to be a regression: on a fast endpoint a
    /// 2× of 1.6 ms is noise, not a regression (default 25 ms).
    public var minimumSlowdown: Duration

    public init(
        window: Int = 10, factor: Double = 1.5, minimumRuns: Int = 5, minimumSlowdown: Duration = .milliseconds(25)
    ) {
        self.window = window
        self.factor = factor
        self.minimumRuns = minimumRuns
        self.minimumSlowdown = minimumSlowdown
    }
}

extension Duration {
    /// Seconds as a `TimeInterval`.
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// Milliseconds as a `Double`.
    package var milliseconds: Double { timeInterval * 1_000 }
}

/// `300ms`, `1.5s`, `2m`: the form the config accepts.
package func formatDuration(_ duration: Duration) -> String {
    let ms = duration.milliseconds
    if ms < 1_000 { return ms == ms.rounded() ? "\(Int(ms))ms" : String(format: "%.1fms", ms) }
    let s = ms / 1_000
    if s < 60 || s.truncatingRemainder(dividingBy: 60) != 0 {
        return s == s.rounded() ? "\(Int(s))s" : String(format: "%.1fs", s)
    }
    return "\(Int(s / 60))m"
}

/// `8MiB`, `512KiB`, `1000B`: a byte count in the largest binary unit that divides it, as the config accepts it.
package func formatSize(_ bytes: Int) -> String {
    for (unit, factor) in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] where bytes >= factor {
        if bytes % factor == 0 { return "\(bytes / factor)\(unit)" }
    }
    return "\(bytes)B"
}

extension JSONValue {
    /// Compact JSON text, for messages.
    package var serializedText: String { String(decoding: serialized(sortedKeys: true), as: UTF8.self) }
}

extension ProbeConfig {
    /// A redactor for a run of this config: the default policy plus `redact:`, knowing every value substituted
    /// from the environment (masked as `${NAME}`) and the credentials the config's requests carry.
    ///
    /// - Parameter secrets: the store to add to (the command line's, so its output is masked too).
    package func makeRedactor(secrets: SecretValues = SecretValues()) -> Redactor {
        let redactor = Self.makeRedactor(
            environmentSecrets: environmentSecrets, bodyKeys: redactBodyFields, secrets: secrets)
        // The config's own credentials (a literal `X-Api-Key`) are kept for the whole run.
        var permanent = redactor
        permanent.keepsLearnedValues = true
        for endpoint in endpoints {
            guard let request = try? endpoint.makeRequest(baseURL: baseURL, file: file) else { continue }
            permanent.learnURL(request.url?.absoluteString ?? "")
            permanent.learnHeaders(HeaderFields(request.allHTTPHeaderFields ?? [:]))
            if let body = request.httpBody {
                permanent.learnBody(body, contentType: request.value(forHTTPHeaderField: "Content-Type"))
            }
        }
        return redactor
    }

    static func makeRedactor(
        environmentSecrets: [String: String], bodyKeys: [String], secrets: SecretValues = SecretValues()
    ) -> Redactor {
        let redactor = Redactor(RedactionPolicy.default.redactingBodyKeys(bodyKeys), secrets: secrets)
        for (value, name) in environmentSecrets.sorted(by: { $0.key < $1.key }) {
            redactor.learn(value, as: "${\(name)}")
        }
        return redactor
    }
}

/// A receiver of alerts: a generic JSON webhook, or a Slack-compatible incoming webhook.
public struct AlertTarget: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// `POST` of `{"api", "endpoint", "state", "at", "message", "url", "consecutive"}`.
        case webhook
        /// `POST` of `{"text": "…"}`, as Slack's (and Mattermost's, Discord's /slack) incoming webhooks take.
        case slack
    }

    public var kind: Kind
    public var url: URL

    public init(kind: Kind, url: URL) {
        self.kind = kind
        self.url = url
    }
}
