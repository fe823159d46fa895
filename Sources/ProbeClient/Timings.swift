package import Foundation

/// Where the time of one request went, as blackbox_exporter's `probe_http_duration_seconds{phase}` splits it:
/// looking up the host, opening the TCP connection, the TLS handshake, sending the request and waiting for the
/// response head (`processing`, as curl's `time_starttransfer - time_pretransfer`), and reading the body
/// (`transfer`).
///
/// A sample that reused a kept-alive connection has zero `dns`, `connect` and `tls` and ``connectionReused`` set.
/// After redirects, each phase is the sum over the hops. The phases follow one another without a gap from the
/// sample's start, so they add up to its latency but for the client's work after the last byte (microseconds);
/// the client's set-up (event loops, TLS contexts) happens before any sample is timed.
package struct PhaseTimings: Sendable, Hashable {
    var dns: Duration
    var connect: Duration
    var tls: Duration
    /// From the connection ready (or the hop's start on a kept-alive one) to the response head: writing the
    /// request and waiting for the server.
    var processing: Duration
    /// From the response head to the last body byte.
    package var transfer: Duration
    /// No new connection was opened for the sample: every hop went over a kept-alive connection.
    package var connectionReused: Bool

    package init(
        dns: Duration = .zero, connect: Duration = .zero, tls: Duration = .zero, processing: Duration = .zero,
        transfer: Duration = .zero, connectionReused: Bool = false
    ) {
        self.dns = dns
        self.connect = connect
        self.tls = tls
        self.processing = processing
        self.transfer = transfer
        self.connectionReused = connectionReused
    }

    /// The phases by name, in the order a request goes through them: `dns`, `connect`, `tls`, `processing`,
    /// `transfer` (the names reports and metric labels use).
    package var named: [(name: String, duration: Duration)] {
        [("dns", dns), ("connect", connect), ("tls", tls), ("processing", processing), ("transfer", transfer)]
    }

    /// The phase names, in order.
    package static let names = ["dns", "connect", "tls", "processing", "transfer"]

    /// Each phase's sum with `other`'s; reused only when both were.
    func adding(_ other: PhaseTimings) -> PhaseTimings {
        PhaseTimings(
            dns: dns + other.dns, connect: connect + other.connect, tls: tls + other.tls,
            processing: processing + other.processing, transfer: transfer + other.transfer,
            connectionReused: connectionReused && other.connectionReused)
    }
}

/// What the TLS handshake of an `https` endpoint showed: the server's leaf certificate and whether it was
/// verified (the chain up to a trusted root, and the host name).
package struct TLSReport: Sendable, Hashable {
    /// The leaf certificate's subject (`CN=api.example.com`).
    package var subject: String
    /// The leaf certificate's issuer.
    package var issuer: String
    package var notBefore: Date
    /// When the first certificate of the presented chain expires: the leaf's, unless an intermediate expires
    /// earlier (``expiresFirst`` names it), as blackbox_exporter's `probe_ssl_earliest_cert_expiry`. The value of
    /// `apiprobe_tls_cert_expiry_timestamp_seconds` and what `tls.expiresIn` judges.
    package var notAfter: Date
    /// The subject of the chain's certificate that expires first, when it is not the leaf
    /// (`CN=Example Intermediate CA`); `nil` when the leaf expires first, or only the leaf was seen
    /// (`insecure: true`, which skips the chain).
    package var expiresFirst: String?
    /// The chain led to a trusted root and the certificate names the host; `false` with ``insecure`` (not checked)
    /// or when verification failed (``failure`` says why).
    package var verified: Bool
    /// `insecure: true`: the certificate was not verified.
    package var insecure: Bool
    /// Why verification failed (`expired`, `self-signed`, `unknown-authority`, `name-mismatch`, ...).
    package var failure: TLSFailureReason?

    package init(
        subject: String, issuer: String, notBefore: Date, notAfter: Date, verified: Bool, insecure: Bool,
        failure: TLSFailureReason? = nil
    ) {
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.verified = verified
        self.insecure = insecure
        self.failure = failure
        self.expiresFirst = nil
    }

    /// The subject of the certificate whose expiry ``notAfter`` is: ``expiresFirst``, else the leaf's.
    package var expiringSubject: String { expiresFirst ?? subject }

    /// Days from `now` until the certificate expires (negative once it has).
    package func daysUntilExpiry(from now: Date) -> Double { notAfter.timeIntervalSince(now) / 86_400 }
}

/// Why a TLS connection failed. A struct with static members, so new reasons do not break `switch`es.
package struct TLSFailureReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package var rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    /// The server's certificate is past its notAfter.
    static let expired = TLSFailureReason(rawValue: "expired")
    /// The server's certificate is not valid yet (notBefore in the future).
    static let notYetValid = TLSFailureReason(rawValue: "not-yet-valid")
    /// The server's certificate signs itself and is not trusted.
    static let selfSigned = TLSFailureReason(rawValue: "self-signed")
    /// The chain leads to no trusted root (an unknown CA, a missing intermediate).
    static let unknownAuthority = TLSFailureReason(rawValue: "unknown-authority")
    /// The certificate does not name the host (or IP address) that was asked for.
    static let nameMismatch = TLSFailureReason(rawValue: "name-mismatch")
    /// The server asked for a client certificate and none was given.
    static let clientCertificateRequired = TLSFailureReason(rawValue: "client-certificate-required")
    /// The server refused the client certificate given.
    static let clientCertificateRejected = TLSFailureReason(rawValue: "client-certificate-rejected")
    /// Any other handshake failure (no common protocol or cipher, not TLS at all).
    package static let handshake = TLSFailureReason(rawValue: "handshake")

    package var description: String { rawValue }

    /// Whether the reason is about the server's own certificate (expired, not yet valid, self-signed, of an
    /// unknown authority, naming another host): only then is the server's chain unverified. A refused or missing
    /// client certificate, or another handshake failure, says nothing against a chain that verified.
    package var concernsServerCertificate: Bool {
        [.expired, .notYetValid, .selfSigned, .unknownAuthority, .nameMismatch].contains(self)
    }
}
