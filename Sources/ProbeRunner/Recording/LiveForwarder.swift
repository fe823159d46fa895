import APIProbeShared
package import Foundation
package import HTTPFixtures
import ProbeClient

/// Sends what `apiprobe serve --proxy` cannot answer from its fixtures to the live API, through the probe's own
/// client (``HTTPLoader``: the limits of `record`, a connection kept alive per host), and makes the fixture the
/// answer becomes (``Recorder/exchange(request:status:headers:body:recordedAt:source:recordedURL:)``, then the
/// redactor).
package final class LiveForwarder: Sendable {
    /// The live API's origin: `https://api.example.com`.
    package let upstream: URL
    /// Redacts each recorded exchange; the values it learns (a bearer token in one request) are masked in every
    /// later recording too.
    package let redactor: Redactor
    let timeout: Duration
    let maximumBodySize: Int
    private let loader: HTTPLoader

    /// Request headers of one hop, not passed on: the loader sets its own `Host` and `Content-Length`, and a
    /// fixture holds the body as it is, so the live API is not offered compression.
    static let hopHeaders: Set<String> = [
        "host", "connection", "keep-alive", "transfer-encoding", "content-length", "accept-encoding", "te",
        "upgrade", "proxy-connection", "proxy-authorization",
    ]

    /// One exchange with the live API.
    package struct Forwarded: Sendable {
        /// The live answer, as received, for the client (the server leaves out the headers of one transfer, as it
        /// does for a fixture's answer).
        package var status: Int
        package var headers: HeaderFields
        package var body: Data
        /// The exchange as a fixture stores it: redacted, secrets met so far masked.
        package var fixture: Exchange
    }

    /// The live API did not answer: the reason, with credentials masked.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    package init(
        upstream: URL, redactor: Redactor = Redactor(), timeout: Duration = .seconds(30),
        maximumBodySize: Int = ProbeConfig.defaultRecordBodyLimit
    ) {
        self.upstream = upstream
        self.redactor = redactor
        self.timeout = timeout
        self.maximumBodySize = maximumBodySize
        loader = HTTPLoader(maximumConnectionsPerHost: 8)
    }

    /// Closes the kept-alive connections.
    package func close() { loader.close() }

    /// Sends `method` `target` (the path and query the client asked for) to the live API.
    ///
    /// - Parameter recordedURL: the URL the fixture records (the fixtures' origin with `target`).
    package func forward(
        method: String, target: String, headers: [(name: String, value: String)], body: Data?, recordedURL: String,
        now: Date = Date()
    ) async throws(Failure) -> Forwarded {
        let base =
            upstream.absoluteString.hasSuffix("/")
            ? String(upstream.absoluteString.dropLast())
            : upstream
                .absoluteString
        guard let url = URL(string: base + target) else {
            throw Failure(description: "\(redactor.redactURL(target)) does not make a URL on \(base)")
        }
        // The client's fields in its order, repeats kept, without those of one hop; never retried (the client
        // decides), never redirected (the client follows a 3xx itself).
        let request = ProbeRequest(
            method: method, url: url,
            headers: HeaderFields(
                headers.filter { !Self.hopHeaders.contains($0.name.lowercased()) }.map {
                    HeaderFields.Field(name: $0.name, value: $0.value)
                }),
            body: body?.isEmpty == false ? body : nil, timeout: timeout, maxBodySize: maximumBodySize,
            followsRedirects: false)
        let shown = redactor.redactURL(url.absoluteString)
        let response: ProbeResponse
        switch await loader.send(request, deadline: .now + timeout) {
        case .success(let answer):
            response = answer
        case .failure(let error):
            switch error.code {
            case .bodyTooLarge:
                throw Failure(
                    description: "\(shown): the body is larger than \(formatSize(maximumBodySize)); nothing recorded")
            case .timedOut, .cutByDeadline, .notSent:
                throw Failure(description: "\(shown): no complete response within \(formatDuration(timeout))")
            default:
                throw Failure(description: "cannot reach \(shown): \(redactor.redact(text: error.description))")
            }
        }
        guard let status = response.status, (100...599).contains(status) else {
            throw Failure(description: "\(shown) did not answer with an HTTP status from 100 to 599")
        }
        let live = Recorder.exchange(
            request: request, status: status, headers: response.headers, body: response.body,
            recordedAt: now, source: "serve --proxy", recordedURL: recordedURL)
        let redacted = redactor.redact(live)
        // What the file will hold: every secret met so far masked by value too, as `record` writes it.
        let masked = redactor.secrets.mask(redacted.encoded())
        let fixture = (try? Exchange(decoding: masked, file: "the recording")) ?? redacted
        // The answer as the live API sent it, repeats (`Set-Cookie` once per cookie) kept.
        return Forwarded(status: status, headers: response.headers, body: response.body, fixture: fixture)
    }
}
