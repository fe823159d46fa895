package import Foundation
package import HTTPFixtures

/// One request the tool sends, with everything that says how: built once (from an endpoint's config by `run` and
/// `record`, by `serve --proxy` from the request it forwards, by the alerts and the Pushgateway push) and given to
/// ``HTTPLoader/send(_:deadline:limiter:)``, the one way out.
///
/// The scheme of ``url`` says what is probed: `http`/`https` send the request; `tcp`/`tls` open a connection (and
/// make its TLS handshake) and send nothing; `dns` asks ``dns`` of the server the URL names.
package struct ProbeRequest: Sendable, Hashable {
    package var method: String
    package var url: URL
    /// Sent in this order, with their spelling and repeats; `Host` is the URL's, `User-Agent` and `Accept` are added
    /// when missing, and `Content-Length` is the body's.
    package var headers: HeaderFields
    package var body: Data?
    /// How long one attempt may take, from the first byte sent to the last read (each retry gets its own).
    var timeout: Duration
    /// The most bytes of a response body read: a longer one stops the transfer there and fails with
    /// ``ProbeClientError/Code/bodyTooLarge(limit:)``.
    var maxBodySize: Int
    /// Whether a 3xx with a `Location` is followed (by ``RedirectRule``); otherwise it is the response.
    var followsRedirects: Bool
    var tls: TLSSettings
    /// What is tried again, how often and after what pause.
    var retry: RetryRule
    /// A `dns://` request's question.
    var dns: DNSQuery?

    package init(
        method: String = "GET", url: URL, headers: HeaderFields = HeaderFields(), body: Data? = nil,
        timeout: Duration, maxBodySize: Int = 64 << 10, followsRedirects: Bool = true, tls: TLSSettings = TLSSettings(),
        retry: RetryRule = .none, dns: DNSQuery? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxBodySize = maxBodySize
        self.followsRedirects = followsRedirects
        self.tls = tls
        self.retry = retry
        self.dns = dns
    }
}

/// What a ``ProbeRequest`` got: the answer (its status, header fields as sent and body) and what was measured on the
/// way to it.
package struct ProbeResponse: Sendable {
    /// The HTTP status; `nil` for `tcp://` and `tls://` (the connection opened) and `dns://` (the answer is ``dns``).
    package var status: Int?
    /// The response's header fields as sent: order, spelling and repeats (`Set-Cookie` once per cookie) kept.
    package var headers: HeaderFields
    package var body: Data
    package var latency: Duration
    package var timeToFirstByte: Duration?
    /// Every URL a redirect led to, in order (the last is where the answer came from).
    package var redirects: [URL]
    /// Where the time went.
    package var phases: PhaseTimings?
    /// The server's certificate and its verification (https and tls:// only).
    package var tls: TLSReport?
    /// A `dns://` request's answer.
    package var dns: DNSAnswer?
    /// How many attempts before this one failed and were tried again (``RetryRule``).
    package var retries: Int
    /// Whether this answer is a rate limit (429, or 503 with `Retry-After`) that the rule's waits did not outlast.
    package var rateLimited: Bool

    init(
        status: Int?, headers: HeaderFields = HeaderFields(), body: Data = Data(), latency: Duration,
        timeToFirstByte: Duration? = nil, redirects: [URL] = [], phases: PhaseTimings? = nil, tls: TLSReport? = nil,
        dns: DNSAnswer? = nil, retries: Int = 0, rateLimited: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.latency = latency
        self.timeToFirstByte = timeToFirstByte
        self.redirects = redirects
        self.phases = phases
        self.tls = tls
        self.dns = dns
        self.retries = retries
        self.rateLimited = rateLimited
    }
}
