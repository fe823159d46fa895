import Foundation
package import HTTPFixtures

/// What is tried again, how often and after what pause: one rule for every request the tool sends (`run`,
/// `record`, and with ``none`` `serve --proxy`, alerts and the Pushgateway push), applied by
/// ``HTTPLoader/send(_:deadline:limiter:)``.
///
/// - A transport error (no answer: DNS, refused, a timeout, TLS, a lost connection) is tried again up to
///   ``retries`` times, after 100 ms doubling per retry (at most 2 s) with ±50% jitter. Never a body too large (that
///   is the answer; reading it again gives the same), never an attempt the deadline cut, never an HTTP status.
/// - A rate limit (429, or 503 with `Retry-After`) is waited out for its `Retry-After` (seconds or an HTTP date;
///   1 s without one; at most ``maximumRetryAfter``) and asked again, up to `max(1, retries)` times.
/// - No pause passes the deadline: the last answer (or error) is kept instead.
package struct RetryRule: Sendable, Hashable {
    /// How many times a transport error is tried again (an endpoint's `retries`).
    var retries: Int

    package init(retries: Int) { self.retries = max(0, retries) }

    /// Nothing tried again.
    package static let none = RetryRule(retries: 0)

    /// The longest `Retry-After` waited for.
    static let maximumRetryAfter: Duration = .seconds(30)

    /// Whether an attempt that failed so, after `retried` retries, is tried again.
    package func retries(after error: ProbeClientError, retried: Int) -> Bool {
        guard retried < retries else { return false }
        switch error.code {
        case .bodyTooLarge, .cutByDeadline, .notSent, .unsupportedURL: return false
        case .timedOut, .hostNotFound, .noNameServer, .malformedDNSAnswer, .refused, .connectionLost, .notHTTP,
            .tooManyRedirects, .tls, .other:
            return true
        }
    }

    /// The pause before retry `retry` (0 for the first): 100 ms doubling, at most 2 s, with ±50% jitter.
    package func backoff(_ retry: Int) -> Duration {
        let base = min(0.1 * pow(2, Double(min(retry, 10))), 2)
        return .milliseconds(Int64(base * Double.random(in: 0.5...1.5) * 1_000))
    }

    /// Whether an answer with `status` and `headers` is a rate limit: 429, or 503 with `Retry-After`.
    static func isRateLimit(status: Int, headers: HeaderFields) -> Bool {
        status == 429 || (status == 503 && retryAfter(headers["Retry-After"]) != nil)
    }

    /// How long to wait before asking again after a rate limit, when `waited` waits were made already; `nil` when
    /// the answer is not a rate limit or the waits are used up.
    package func rateLimitWait(status: Int, headers: HeaderFields, waited: Int) -> Duration? {
        guard Self.isRateLimit(status: status, headers: headers), waited < max(1, retries) else { return nil }
        return min(Self.retryAfter(headers["Retry-After"]) ?? .seconds(1), Self.maximumRetryAfter)
    }

    /// `Retry-After` in seconds or as an HTTP date (RFC 9110, 10.2.3); `nil` when absent or unreadable.
    static func retryAfter(_ value: String?) -> Duration? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if let seconds = Double(text), seconds >= 0, seconds.isFinite {
            return .milliseconds(Int64(min(seconds, 86_400) * 1_000))
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return .milliseconds(Int64(max(0, min(date.timeIntervalSinceNow, 86_400)) * 1_000))
    }
}
