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
            return ProbeFailure(category: .connection, message: "\(detail) (\(url))")
        }
    }
}
