import APIProbeShared
import Foundation
import HTTPFixtures
import NIOCore
import NIOHTTP1
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a ``ProbeRequest`` got no usable answer: one error over a code, as AsyncHTTPClient's `HTTPClientError`, with
/// what was measured before it failed (a failed TLS handshake still shows the certificate).
///
/// The client's own failures are made as codes where they happen; what SwiftNIO, NIOSSL or the system report is
/// turned into a code once, by ``init(_:)``. ``FailureClassification`` switches over ``Code`` exhaustively, so a new
/// code cannot go unclassified.
package struct ProbeClientError: Error, Sendable, CustomStringConvertible {
    package enum Code: Sendable, Hashable {
        /// The request's timeout passed before the response was complete (the detail is the timeout, `5 s`).
        case timedOut
        /// The round's deadline came first, mid-request.
        case cutByDeadline
        /// The deadline came before the request could be sent (waiting for the rate limiter, or for a retry).
        case notSent
        /// The response body was larger than the request's limit; reading stopped there.
        case bodyTooLarge(limit: Int)
        /// The host name did not resolve.
        case hostNotFound
        /// `dns://` without a server, and no `nameserver` in `/etc/resolv.conf`.
        case noNameServer
        /// A DNS answer that does not parse (the detail names the byte).
        case malformedDNSAnswer
        /// The connection was refused.
        case refused
        /// The connection closed before the response was complete.
        case connectionLost
        /// The server answered with something that is not HTTP.
        case notHTTP
        /// More than ``RedirectRule/maximumHops`` redirects.
        case tooManyRedirects
        /// The TLS handshake failed, for this reason.
        case tls(TLSFailureReason)
        /// A URL the client cannot send to (not http, https, tcp, tls or dns, or without a host).
        case unsupportedURL
        /// Anything else the system reported (the detail says what).
        case other
    }

    package var code: Code
    /// The failure in the client's words (`127.0.0.1: Name or service not known`, `the certificate expired …`).
    var detail: String
    package var latency: Duration = .zero
    package var timeToFirstByte: Duration?
    package var phases: PhaseTimings?
    /// The server's certificate, when the handshake got that far.
    package var tls: TLSReport?
    /// How many attempts before this one failed and were tried again.
    package var retries = 0
    /// Whether an earlier attempt was rate limited.
    package var wasRateLimited = false

    package init(_ code: Code, detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A failed TLS handshake, for `reason`.
    init(reason: TLSFailureReason, detail: String) { self.init(.tls(reason), detail: detail) }

    /// What SwiftNIO, NIOSSL or the system reported, as a code: the one place their types are looked at.
    package init(_ error: any Error) {
        switch error {
        case let error as ProbeClientError:
            self = error
        case let error as MalformedDNSMessage:
            self.init(.malformedDNSAnswer, detail: "\(error)")
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            self.init(.refused, detail: "\(error)")
        case ChannelError.connectTimeout:
            // Matched by case, not by description: NIO describes it as "Connect timeout (…)".
            self.init(.timedOut)
        case is HTTPParserError:
            self.init(.notHTTP, detail: "\(error)")
        default:
            if let failure = TLSVerification.classify(error) {
                self = failure
            } else {
                self.init(.other, detail: "\(error)")
            }
        }
    }

    /// A few words for a person, without the URL (``FailureClassification/classify(_:url:timeout:)`` adds it for a
    /// probe's report): `connection refused`, `host not found`, `TLS failed: expired`.
    package var description: String {
        switch code {
        case .timedOut: return detail.isEmpty ? "no complete response in time" : "no complete response within \(detail)"
        case .cutByDeadline: return "cut off by the deadline"
        case .notSent: return "not sent before the deadline"
        case .bodyTooLarge(let limit): return "the body is larger than \(formatSize(limit))"
        case .hostNotFound: return "host not found"
        case .noNameServer, .malformedDNSAnswer, .other: return detail
        case .refused: return "connection refused"
        case .connectionLost: return "connection lost"
        case .notHTTP: return "not an HTTP response"
        case .tooManyRedirects: return "more than \(RedirectRule.maximumHops) redirects"
        case .tls(let reason): return "TLS failed: \(reason)"
        case .unsupportedURL: return "not a URL the client sends to: \(detail)"
        }
    }

    /// Why TLS failed, when it did.
    var tlsReason: TLSFailureReason? {
        if case .tls(let reason) = code { return reason }
        return nil
    }

    /// Whether the request's time ran out (its timeout or the deadline).
    var timedOut: Bool {
        switch code {
        case .timedOut, .cutByDeadline, .notSent: return true
        default: return false
        }
    }
}
