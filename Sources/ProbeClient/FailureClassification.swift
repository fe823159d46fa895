import APIProbeShared
import Foundation
import HTTPFixtures
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Transport errors as a person reads them: DNS, refused, timeout, TLS (with its reason), connection.
package enum FailureClassification {
    /// A transport error in a few words, for a request that is not a probe (`record`, `serve --proxy`, an alert,
    /// a push): `connection refused`, `host not found`, `TLS failed: …`.
    package static func describe(_ error: any Error) -> String {
        let failure = classify(error, timedOut: false, byDeadline: false, url: "", timeout: .zero)
        switch failure.category {
        case .refused: return "connection refused"
        case .dns: return "host not found"
        case .connection: return "connection lost"
        case .tls: return "TLS failed: \(failure.tlsReason ?? .handshake)"
        default: return failure.message
        }
    }

    package static func classify(_ error: any Error, timedOut: Bool, byDeadline: Bool, url: String, timeout: Duration)
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
        if timedOut || error is RequestTimedOut {
            return ProbeFailure(category: .timeout, message: "no complete response within \(formatDuration(timeout))")
        }
        switch error {
        case let error as MalformedDNSMessage:
            return ProbeFailure(category: .dns, message: "\(error) (\(url))")
        case let error as NoNameServer:
            return ProbeFailure(category: .dns, message: "\(error)")
        case let error as HostNotFound:
            return ProbeFailure(category: .dns, message: "host not found (\(url)): \(error.detail)")
        case let error as TLSConnectionError:
            return ProbeFailure(category: .tls, message: "TLS failed (\(url)): \(error)", tlsReason: error.reason)
        case let error as IOError where error.errnoCode == ECONNREFUSED:
            return ProbeFailure(category: .refused, message: "connection refused (\(url))")
        case ChannelError.connectTimeout:
            // Matched by case, not by description: NIO describes it as "Connect timeout (…)".
            return ProbeFailure(category: .timeout, message: "no complete response within \(formatDuration(timeout))")
        case is HTTPParserError:
            return ProbeFailure(category: .connection, message: "not an HTTP response (\(url)): \(error)")
        case is ConnectionLost:
            return ProbeFailure(category: .connection, message: "connection lost mid-response (\(url)): \(error)")
        default:
            if let failure = TLSVerification.classify(error) {
                return ProbeFailure(
                    category: .tls, message: "TLS failed (\(url)): \(failure)", tlsReason: failure.reason)
            }
            return ProbeFailure(category: .connection, message: "\(error) (\(url))")
        }
    }
}
