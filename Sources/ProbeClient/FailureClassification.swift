import APIProbeShared
import Foundation

/// A probe's transport error as a person reads it, in a report: its category (``FailureCategory``) and a message
/// with the URL.
package enum FailureClassification {
    /// `error` as a probe's failure at `url` (the request's timeout `timeout`): one case per code, so a new code
    /// cannot fall through unclassified.
    package static func classify(_ error: ProbeClientError, url: String, timeout: Duration) -> ProbeFailure {
        switch error.code {
        case .bodyTooLarge(let limit):
            return ProbeFailure(
                category: .bodyTooLarge,
                message: "the body is larger than maxBodySize \(formatSize(limit)); reading stopped there (\(url))")
        case .cutByDeadline:
            return ProbeFailure(category: .timeout, message: "cut off by the run's deadline (\(url))")
        case .notSent:
            return ProbeFailure(category: .timeout, message: "not sent: the run's deadline was reached (\(url))")
        case .timedOut:
            return ProbeFailure(category: .timeout, message: "no complete response within \(formatDuration(timeout))")
        case .malformedDNSAnswer:
            return ProbeFailure(category: .dns, message: "\(error.detail) (\(url))")
        case .noNameServer:
            return ProbeFailure(category: .dns, message: error.detail)
        case .hostNotFound:
            return ProbeFailure(category: .dns, message: "host not found (\(url)): \(error.detail)")
        case .tls(let reason):
            return ProbeFailure(
                category: .tls,
                message:
                    "TLS failed (\(url)): \(error.detail.isEmpty ? reason.rawValue : "\(reason): \(error.detail)")",
                tlsReason: reason)
        case .refused:
            return ProbeFailure(category: .refused, message: "connection refused (\(url))")
        case .notHTTP:
            return ProbeFailure(category: .connection, message: "not an HTTP response (\(url)): \(error.detail)")
        case .connectionLost:
            return ProbeFailure(
                category: .connection,
                message: "connection lost mid-response (\(url)): the connection closed before the response was complete"
            )
        case .tooManyRedirects:
            return ProbeFailure(category: .connection, message: "\(error) (\(url))")
        case .unsupportedURL:
            return ProbeFailure(category: .connection, message: "not an http(s) URL (\(url))")
        case .other:
            return ProbeFailure(category: .connection, message: "\(error.detail) (\(url))")
        }
    }
}
