import Foundation
import HTTPFixtures

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Transport errors as a person reads them: DNS, refused, timeout, TLS, connection.
enum FailureClassification {
    static func classify(_ error: any Error, timedOut: Bool, byDeadline: Bool, url: String, timeout: Duration)
        -> ProbeFailure
    {
        if let tooLarge = error as? BodyTooLarge {
            return ProbeFailure(
                category: .bodyTooLarge,
                message:
                    "the body is larger than maxBodySize \(formatSize(tooLarge.limit)); reading stopped there (\(url))")
        }
        if byDeadline {
            return ProbeFailure(category: .timeout, message: "cut off by the run's deadline (\(url))")
        }
        if timedOut {
            return ProbeFailure(category: .timeout, message: "no complete response within \(formatDuration(timeout))")
        }
        let code = (error as? URLError)?.code ?? URLError.Code(rawValue: (error as NSError).code)
        let detail = (error as NSError).localizedDescription
        switch code {
        case .cannotFindHost, .dnsLookupFailed:
            return ProbeFailure(category: .dns, message: "host not found (\(url)): \(detail)")
        case .cannotConnectToHost:
            return ProbeFailure(category: .refused, message: "connection refused (\(url))")
        case .timedOut:
            return ProbeFailure(category: .timeout, message: "no complete response within \(formatDuration(timeout))")
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return ProbeFailure(category: .tls, message: "TLS failed (\(url)): \(detail)")
        case .networkConnectionLost, .badServerResponse, .cannotParseResponse, .notConnectedToInternet,
            .zeroByteResource, .cannotDecodeRawData, .cannotDecodeContentData, .resourceUnavailable:
            return ProbeFailure(category: .connection, message: "connection lost mid-response (\(url)): \(detail)")
        default:
            // swift-corelibs-foundation maps every libcurl TLS failure (an untrusted or expired certificate, a
            // name mismatch, a failed handshake) to NSURLErrorUnknown and keeps only curl's text, which names
            // SSL, TLS or the certificate.
            if Self.isTLSDescription(detail) {
                return ProbeFailure(category: .tls, message: "TLS failed (\(url)): \(detail)")
            }
            return ProbeFailure(category: .connection, message: "\(detail) (\(url))")
        }
    }

    /// Whether libcurl's error text is about TLS: `SSL certificate problem: self-signed certificate`,
    /// `SSL: no alternative certificate subject name matches target host name '…'`,
    /// `OpenSSL SSL_connect: SSL_ERROR_SYSCALL in connection to …`, `TLS connect error: …`.
    static func isTLSDescription(_ text: String) -> Bool {
        let lower = text.lowercased()
        return ["ssl", "tls", "certificate", "x509"].contains { lower.contains($0) }
    }
}
