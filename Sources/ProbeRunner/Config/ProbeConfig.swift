import APIProbeShared
package import Foundation
package import HTTPFixtures
import ProbeClient

/// A probe configuration: what `apiprobe run` checks and `apiprobe record` records (`apiprobe.yml`, README).
///
/// Read one with ``ProbeConfig/load(contentsOf:environment:)``; `${VAR}` and `${VAR:-default}` are
/// replaced from the environment before anything else is read.
package struct ProbeConfig: Sendable, Hashable {
    /// The file it was read from, as shown in messages (`apiprobe.yml`).
    var file: String
    /// The API's name: fixtures go to `Stubs/<api>/`, snapshots are `Snapshots/<api>/<endpoint>.schema.json`.
    package var api: String
    /// Relative paths and endpoint paths resolve against it.
    var baseURL: URL?
    /// The folders of fixtures and snapshots, relative to the config file's folder.
    var stubsDirectory: String
    var snapshotsDirectory: String
    /// Values every endpoint starts from.
    var defaults: EndpointDefaults
    package var endpoints: [EndpointConfig]
    /// How many requests are in flight at once across all endpoints.
    var concurrency: Int
    /// The most requests a second sent to one host (`nil`: no limit); the config accepts ``rateLimitRange``.
    var requestsPerSecondPerHost: Double?
    /// The longest a whole run may take; endpoints not finished by then fail as timed out.
    var deadline: Duration
    /// How many consecutive failed rounds make an endpoint count as down (flapping damper).
    package var downAfter: Int
    /// How many consecutive passing rounds make a down endpoint recovered (the recovery alert's damper).
    package var successThreshold: Int = 1
    /// Where state changes (down, recovered) are announced.
    var alerts: [AlertTarget] = []
    /// Latency regression detection against the history file.
    package var regression: RegressionPolicy
    /// How much of the history file a run keeps (`history: {keep, maxSize}`); everything by default.
    var historyRetention = HistoryRetention()
    /// When every endpoint is expected to be unavailable: rounds then do not probe it (``MaintenanceWindow``).
    package var maintenance: [MaintenanceWindow] = []
    /// JSON body fields redacted when recording, beside the default header and query redactions.
    var redactBodyFields: [String]
    /// The values substituted from the environment, each with its variable's name: the run's secrets.
    var environmentSecrets: [String: String] = [:]

    package init(
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
    static let rateLimitRange: ClosedRange<Double> = 0.001...100_000

    /// The largest response body `apiprobe run` reads when the config names none (8 MiB); a larger one fails
    /// the sample as `body-too-large`.
    static let defaultRunBodyLimit = 8 << 20

    /// The largest response body `apiprobe record` reads when the config names none (64 MiB).
    static let defaultRecordBodyLimit = 64 << 20
}

/// What every endpoint starts from unless it says otherwise.
package struct EndpointDefaults: Sendable, Hashable {
    var headers: [String: String]
    var samples: Int
    var timeout: Duration
    var retries: Int
    /// The largest response body read, in bytes (`nil`: the command's default).
    var maxBodySize: Int?
    /// `tls:` settings every endpoint starts from (an endpoint's own `tls:` keys replace these key by key).
    var tls = TLSSettings()
    var expectations: Expectations

    init(
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
package struct EndpointConfig: Sendable, Hashable {
    /// Unique in a config; names the fixture (`Stubs/<api>/<name>.json`) and the snapshot.
    package var name: String
    var method: String
    /// An absolute URL, or a path resolved against the config's base URL.
    package var path: String
    /// Query items in order; added to those already in `path`.
    var query: [QueryItem]
    package var headers: [String: String]
    package var body: RequestBody?
    var samples: Int
    var timeout: Duration
    /// Retries after a transport error (never after an HTTP status), with backoff.
    var retries: Int
    /// The largest response body read, in bytes (`nil`: ``ProbeConfig/defaultRunBodyLimit`` for `run`,
    /// ``ProbeConfig/defaultRecordBodyLimit`` for `record`); a larger body fails as `body-too-large`.
    var maxBodySize: Int?
    /// Whether a 3xx response with a `Location` is followed (the default); `false` makes the 3xx the answer, so
    /// `status: 301` can be expected.
    var followsRedirects: Bool = true
    /// `tls:`: the certificate's expiry budget, a CA file, a client certificate (mTLS), `insecure`.
    var tls = TLSSettings()
    /// How often the endpoint is probed (`interval: 1h`), when less often than every round: a round probes it
    /// only when this long has passed since it was last probed (by this process, or as the history file
    /// says), so a cron job every 5 minutes can check a certificate hourly. `nil`: every round.
    package var interval: Duration?
    /// This endpoint's own maintenance windows, beside the config's.
    package var maintenance: [MaintenanceWindow] = []
    /// `dns:`: the question a `dns://` endpoint asks (`nil` for other kinds).
    var dns: DNSQuery?
    var expectations: Expectations
    /// Where the endpoint is in the config file, for messages (`.file` when built in code).
    var position: SourcePosition

    package init(
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
    package var kind: ProbeKind { ProbeKind(url: path) }

    /// The endpoint's URL: `path` resolved against `baseURL`, with `query` appended.
    ///
    /// - Throws: ``InputError`` when the result is not an absolute http(s) URL, or a `tcp://` or `tls://`
    ///   URL with a host and a port and nothing else, or a `dns://` URL with at most a server and a port.
    func url(baseURL: URL?, file: String = "apiprobe.yml") throws(InputError) -> URL {
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
        if let scheme = URL(string: path)?.scheme?.lowercased(), scheme != "http", scheme != "https" {
            // A scheme apiprobe does not probe (`tpc://`, `ftp://`): every one it does is named.
            throw InputError(
                file: file, position: position, key: "endpoints.\(name).url",
                expected: "a URL whose scheme is http, https, tcp, tls or dns", found: "\"\(path)\" (scheme \(scheme))")
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

    /// The request this endpoint sends, with everything that says how (timeout, body limit, redirects, TLS, the
    /// retry rule, a `dns://` question), built once: method, URL, headers (defaults already merged by the loader, in
    /// name order), body. `defaultBodyLimit` is the command's (`run` and `record` differ) when `maxBodySize` is unset.
    func probeRequest(
        baseURL: URL?, file: String = "apiprobe.yml", defaultBodyLimit: Int = ProbeConfig.defaultRunBodyLimit
    ) throws(InputError) -> ProbeRequest {
        var named = headers
        var payload: Data?
        switch body {
        case .json(let value)?:
            payload = value.serialized(sortedKeys: true)
            if !named.keys.contains(where: { headerNamesMatch($0, "Content-Type") }) {
                named["Content-Type"] = "application/json"
            }
        case .text(let text)?:
            payload = Data(text.utf8)
        case nil:
            break
        }
        return ProbeRequest(
            method: method.uppercased(), url: try url(baseURL: baseURL, file: file), headers: HeaderFields(named),
            body: payload,
            timeout: timeout, maxBodySize: maxBodySize ?? defaultBodyLimit, followsRedirects: followsRedirects,
            tls: tls, retry: RetryRule(retries: retries), dns: dns)
    }
}

/// One query item, kept in order.
package struct QueryItem: Sendable, Hashable {
    var name: String
    package var value: String?

    package init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

/// A request body: JSON (sent as `application/json` unless the headers say otherwise) or text.
package enum RequestBody: Sendable, Hashable {
    case json(JSONValue)
    case text(String)
}

/// What must hold for an endpoint to pass.
package struct Expectations: Sendable, Hashable {
    /// Accepted statuses (default: any 2xx).
    var status: StatusExpectation
    var headers: [HeaderExpectation]
    package var body: [BodyCondition]
    /// The schema snapshot the body must conform to (`nil`: none checked).
    var schema: SchemaExpectation?
    var latency: [LatencyBudget]
    /// A `dns://` endpoint's accepted response codes (`rcode:`; default `NOERROR`).
    var rcodes: [DNSResponseCode]
    /// Values a `dns://` endpoint's answer must hold, each among its records (`answers:`), as `dig +short`
    /// writes them: `127.0.0.1`, `10 mail.example.com`, `v=spf1 -all`.
    var answers: [String]

    init(
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
package struct StatusExpectation: Sendable, Hashable, CustomStringConvertible {
    var ranges: [ClosedRange<Int>]

    init(ranges: [ClosedRange<Int>]) { self.ranges = ranges }

    static let success = StatusExpectation(ranges: [200...299])

    func accepts(_ status: Int) -> Bool { ranges.contains { $0.contains(status) } }

    package var description: String {
        ranges.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound)" }
            .joined(separator: ", ")
    }
}

/// A response header that must be present, equal a value, or match a regular expression.
package struct HeaderExpectation: Sendable, Hashable {
    enum Rule: Sendable, Hashable {
        case exists
        case equals(String)
        case matches(String)
    }

    var name: String
    var rule: Rule

    init(name: String, rule: Rule) {
        self.name = name
        self.rule = rule
    }
}

/// A condition on the value at a JSON Pointer of the response body: `/count > 0`, `/recipes length >= 1`.
package struct BodyCondition: Sendable, Hashable, CustomStringConvertible {
    package enum Operator: String, Sendable, Hashable, CaseIterable {
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
    package enum Subject: String, Sendable, Hashable {
        case json, text, size
    }

    /// What the condition looks at.
    var subject: Subject = .json

    /// A JSON Pointer (RFC 6901) into the body; a `*` segment stands for every item of the array there,
    /// and the condition must hold for each (`/recipes/*/title exists`).
    var pointer: String
    var op: Operator
    /// The value compared against (`nil` for `exists` / `not-exists`); a regular expression for `matches`.
    var operand: JSONValue?
    /// For `length`: how the length compares with `operand` (one of the ordering operators or `==`).
    var lengthOperator: Operator?
    /// As written in the config, for check names: `/count > 0`.
    var source: String

    init(
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

    package var description: String { source }
}

/// The endpoint's body must conform to a schema snapshot; drift at or above `failOn` fails the check.
package struct SchemaExpectation: Sendable, Hashable {
    /// The snapshot file, relative to the config's folder (default: `<snapshots>/<api>/<endpoint>.schema.json`).
    var snapshot: String
    /// A usage manifest that ranks changes at unread paths as info (default: beside the snapshot, when present).
    package var usage: String?
    /// The lowest severity that fails the check: `breaking` (default), `warning` or `info`.
    var failOn: String

    init(snapshot: String, usage: String? = nil, failOn: String = "breaking") {
        self.snapshot = snapshot
        self.usage = usage
        self.failOn = failOn
    }
}

/// A latency budget on a percentile: `p95 < 300ms`.
package struct LatencyBudget: Sendable, Hashable, CustomStringConvertible {
    /// 50, 90, 95, 99 (or 100 for the maximum); any value in 0...100 is accepted.
    var percentile: Double
    var limit: Duration

    init(percentile: Double, limit: Duration) {
        self.percentile = percentile
        self.limit = limit
    }

    /// `p95 < 300ms`
    package var description: String {
        let p = percentile == percentile.rounded() ? String(Int(percentile)) : String(percentile)
        return "latency p\(p) < \(formatDuration(limit))"
    }
}

/// How a run's p95 is compared with history.
package struct RegressionPolicy: Sendable, Hashable {
    /// How many earlier runs the baseline is taken over.
    var window: Int
    /// A p95 above `factor` × the baseline (the median of the window) can be a regression.
    var factor: Double
    /// Fewer earlier runs than this: no verdict.
    package var minimumRuns: Int
    /// How much slower, at least, a p95 must be than the baseline to be a regression: on a fast endpoint a
    /// 2× of 1.6 ms is noise, not a regression (default 25 ms).
    package var minimumSlowdown: Duration

    package init(
        window: Int = 10, factor: Double = 1.5, minimumRuns: Int = 5, minimumSlowdown: Duration = .milliseconds(25)
    ) {
        self.window = window
        self.factor = factor
        self.minimumRuns = minimumRuns
        self.minimumSlowdown = minimumSlowdown
    }
}

extension JSONValue {
    /// Compact JSON text, for messages.
    var serializedText: String { String(decoding: serialized(sortedKeys: true), as: UTF8.self) }
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
            guard let request = try? endpoint.probeRequest(baseURL: baseURL, file: file) else { continue }
            permanent.learnURL(request.url.absoluteString)
            permanent.learnHeaders(request.headers)
            if let body = request.body { permanent.learnBody(body, contentType: request.headers["Content-Type"]) }
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
package struct AlertTarget: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable {
        /// `POST` of `{"api", "endpoint", "state", "at", "message", "url", "consecutive"}`.
        case webhook
        /// `POST` of `{"text": "…"}`, as Slack's (and Mattermost's, Discord's /slack) incoming webhooks take.
        case slack
    }

    package var kind: Kind
    var url: URL

    package init(kind: Kind, url: URL) {
        self.kind = kind
        self.url = url
    }
}
