package import Foundation
import HTTPFixtures
import ProbeClient

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Pushes Prometheus text to a Pushgateway (`PUT /metrics/job/<job>`), as batch jobs report to Prometheus.
///
/// ```swift
/// let gateway = PushgatewayClient(url: URL(string: "http://pushgateway:9091")!, grouping: ["instance": "eu-1"])
/// try await gateway.push(PrometheusReport.render(result))
/// ```
///
/// A `PUT` replaces every metric of the group (`job` plus the grouping labels), so series of an endpoint that
/// left the config disappear with the next push. Label values go in the path URL-escaped; a value with a `/`
/// (or an empty one) in the Pushgateway's base64 form, `/instance@base64/ZXUvMQ==`.
package struct PushgatewayClient: Sendable {
    var url: URL
    var job: String
    /// Grouping labels beside `job` (for instance `instance`), each a series label of every pushed metric.
    var grouping: [String: String]
    /// How long the push may take.
    var timeout: Duration

    package init(url: URL, job: String = "apiprobe", grouping: [String: String] = [:], timeout: Duration = .seconds(10))
    {
        self.url = url
        self.job = job
        self.grouping = grouping
        self.timeout = timeout
    }

    /// The client `apiprobe run --push-gateway` uses: job `apiprobe`, grouped by the config's API name and an
    /// instance (this host's name unless `labels` says otherwise), plus `labels` (`--push-label key=value`).
    ///
    /// Pushes from different configs, hosts or CI matrix jobs then land in groups of their own instead of
    /// replacing each other's series; a config's next push replaces its own group only.
    package static func forRun(
        url: URL, api: String, instance: String = ProcessInfo.processInfo.hostName, labels: [String: String] = [:]
    ) -> PushgatewayClient {
        PushgatewayClient(url: url, grouping: ["api": api, "instance": instance].merging(labels) { $1 })
    }

    /// The group's URL: `<url>/metrics/job/<job>[/<label>/<value>]...`, labels by name.
    ///
    /// - Throws: ``PushgatewayError`` for a URL that is not http(s), an empty job, or a label name Prometheus
    ///   does not allow.
    package func groupURL() throws -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw PushgatewayError(url: url.absoluteString, problem: "expected an http:// or https:// URL")
        }
        guard !job.isEmpty else {
            throw PushgatewayError(url: url.absoluteString, problem: "the job name is empty")
        }
        var path = "/metrics/" + Self.segment(name: "job", value: job)
        for (name, value) in grouping.sorted(by: { $0.key < $1.key }) {
            guard Self.isGroupingLabelName(name) else {
                throw PushgatewayError(
                    url: url.absoluteString, problem: "grouping label \"\(name)\": expected \(Self.groupingLabelRule)")
            }
            path += "/" + Self.segment(name: name, value: value)
        }
        var base = url.absoluteString
        if let query = base.firstIndex(where: { $0 == "?" || $0 == "#" }) { base = String(base[..<query]) }
        while base.hasSuffix("/") { base.removeLast() }
        guard let group = URL(string: base + path) else {
            throw PushgatewayError(url: base + path, problem: "not a valid URL")
        }
        return group
    }

    /// Replaces the group's metrics with `metrics` (text exposition format 0.0.4).
    ///
    /// - Throws: ``PushgatewayError`` naming the URL: not reachable, or an answer other than 2xx, with the status
    ///   and the start of the body (the Pushgateway says there what it could not parse).
    package func push(_ metrics: String) async throws {
        let target = try groupURL()
        let request = ProbeRequest(
            method: "PUT", url: target, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
            body: Data(metrics.utf8), timeout: max(timeout, .milliseconds(1)))
        let status: Int
        let data: Data
        do {
            // The probes' own client: one for everything the tool sends.
            (status, data) = try await HTTPLoader.sendOnce(request)
        } catch {
            throw PushgatewayError(url: target.absoluteString, problem: "cannot push: \(error.description)")
        }
        guard (200..<300).contains(status) else {
            var excerpt = String(decoding: data.prefix(500), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if data.count > 500 { excerpt += "…" }
            throw PushgatewayError(url: target.absoluteString, status: status, body: excerpt)
        }
    }

    /// `job/apiprobe`, `instance@base64/ZXUvMQ==`: one label in a Pushgateway path.
    static func segment(name: String, value: String) -> String {
        if value.isEmpty || value.contains("/") {
            let encoded = Data(value.utf8).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            return "\(name)@base64/\(encoded.isEmpty ? "=" : encoded)"
        }
        return "\(name)/\(percentEscaped(value))"
    }

    private static func percentEscaped(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }

    /// What a grouping label's name must be, for messages.
    package static let groupingLabelRule = "a name matching [a-zA-Z_][a-zA-Z0-9_]*, not job and not starting with __"

    /// Whether `name` can name a grouping label: a Prometheus label name, not `job` (the path's own) and not
    /// reserved (`__…`). `run --push-label` and ``groupURL()`` both ask.
    package static func isGroupingLabelName(_ name: String) -> Bool {
        guard name != "job", !name.hasPrefix("__"), let first = name.utf8.first,
            !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else {
            return false
        }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }
}

/// A push that failed: the URL, and the status and body excerpt when the Pushgateway answered.
///
/// ```
/// Pushgateway http://127.0.0.1:9091/metrics/job/apiprobe answered 400: text format parsing error in line 1: …
/// ```
package struct PushgatewayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL pushed to.
    package var url: String
    /// The HTTP status, when there was an answer.
    package var status: Int?
    /// The start of the answer's body.
    package var body: String
    /// What went wrong when there was no answer (or before sending).
    var problem: String?

    /// - Parameter url: shown with its user-info and credential parameters masked.
    init(url: String, status: Int, body: String) {
        self.url = Redactor().redactURL(url)
        self.status = status
        self.body = body
        self.problem = nil
    }

    /// - Parameter url: shown with its user-info and credential parameters masked.
    init(url: String, problem: String) {
        self.url = Redactor().redactURL(url)
        self.status = nil
        self.body = ""
        self.problem = problem
    }

    package var description: String {
        if let status {
            let reason = HTTPURLResponse.localizedString(forStatusCode: status)
            return "Pushgateway \(url) answered \(status) \(reason)" + (body.isEmpty ? "" : ": \(body)")
        }
        return "Pushgateway \(url): \(problem ?? "push failed")"
    }
}
