import Foundation

/// A transport failure as a person reads it.
package struct ProbeFailure: Sendable, Hashable, CustomStringConvertible {
    package var category: FailureCategory
    /// `connection refused by 127.0.0.1:9`
    package var message: String
    /// Why TLS failed, when the category is `tls`.
    package var tlsReason: TLSFailureReason?

    package init(category: FailureCategory, message: String, tlsReason: TLSFailureReason? = nil) {
        self.category = category
        self.message = message
        self.tlsReason = tlsReason
    }

    package var description: String { "\(category): \(message)" }
}

/// Why something failed, for a person: DNS, refused, timeout, TLS, HTTP status, body condition,
/// schema drift, latency budget. A struct with static members, so new kinds do not break `switch`es.
package struct FailureCategory: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    package var rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }

    package static let dns = FailureCategory(rawValue: "dns")
    package static let refused = FailureCategory(rawValue: "refused")
    package static let timeout = FailureCategory(rawValue: "timeout")
    package static let tls = FailureCategory(rawValue: "tls")
    /// The connection was lost or reset mid-response.
    package static let connection = FailureCategory(rawValue: "connection")
    package static let httpStatus = FailureCategory(rawValue: "http-status")
    package static let header = FailureCategory(rawValue: "header")
    package static let bodyCondition = FailureCategory(rawValue: "body-condition")
    package static let schemaDrift = FailureCategory(rawValue: "schema-drift")
    package static let latencyBudget = FailureCategory(rawValue: "latency-budget")
    package static let rateLimited = FailureCategory(rawValue: "rate-limited")
    /// The response body was larger than the endpoint's `maxBodySize`; reading stopped at the limit.
    static let bodyTooLarge = FailureCategory(rawValue: "body-too-large")
    /// The certificate chain expires within the endpoint's `tls.expiresIn` (a warning ahead of an outage, not one).
    package static let certificateExpiry = FailureCategory(rawValue: "certificate-expiry")
    static let regression = FailureCategory(rawValue: "regression")
    package static let other = FailureCategory(rawValue: "other")

    /// Whether a check that failed so means the endpoint is **down**: no usable answer (DNS, refused, timeout, a
    /// failed TLS handshake, a lost connection) or a status its expectation refuses. Every other failure (a header,
    /// the body, the schema, a latency budget, a certificate expiring soon, a body too large) means an answer
    /// that fails a check: the endpoint is **degraded**, not down. Rate limiting is neither.
    package var meansDown: Bool {
        [.dns, .refused, .timeout, .tls, .connection, .httpStatus, .other].contains(self)
    }

    package var description: String { rawValue }
    package static func < (lhs: FailureCategory, rhs: FailureCategory) -> Bool { lhs.rawValue < rhs.rawValue }
}
