import APIProbeShared
import Foundation
import JSONShape
import ProbeClient
import ProbeRunner

/// Text helpers every report shares, so all of them print the same numbers the same way, whatever the locale.
enum ReportText {
    /// `p50 dns 0.1, connect 0.3, tls 2.1, processing 200.4, transfer 0.2 ms; 4 of 5 samples reused a connection`.
    static func phaseBreakdown(_ phases: PhaseStats) -> String {
        let parts = PhaseTimings.names.map { name in "\(name) \(DisplayText.decimal(phases.phases[name]?.p50 ?? 0))" }
        var text = "p50 " + parts.joined(separator: ", ") + " ms"
        if phases.reusedConnections > 0 {
            text += "; \(phases.reusedConnections) of \(DisplayText.count(phases.count, "sample")) reused a connection"
        }
        return text
    }

    /// `verified, expires 2027-01-01T00:00:00Z (in 38.0 days)`, `NOT VERIFIED (insecure: true), expires …`.
    static func tlsSummary(_ tls: TLSReport, at now: Date) -> String {
        let state =
            tls.insecure
            ? "not verified (insecure: true)" : tls.verified ? "verified" : "failed (\(tls.failure ?? .handshake))"
        let days = tls.daysUntilExpiry(from: now)
        let when = days < 0 ? "\(DisplayText.decimal(-days)) days ago" : "in \(DisplayText.decimal(days)) days"
        return
            "\(state), certificate \(tls.expiringSubject)\(tls.expiresFirst == nil ? "" : " (in the chain)") expires "
            + "\(DisplayText.timestamp(tls.notAfter)) (\(when))"
    }

    /// A value rounded to 0.1, as the JSON report writes it.
    static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    /// `200×5 503×2`, by status; `-` when no sample got a response.
    static func statusCodes(_ codes: [Int: Int]) -> String {
        guard !codes.isEmpty else { return "-" }
        return codes.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
    }

    /// The status column: HTTP statuses (`200×5 503×2`), a DNS endpoint's response codes (`NOERROR×3`), a TCP or
    /// TLS endpoint's opened connections (`open×3`); `-` when no sample got an answer.
    static func answers(_ endpoint: EndpointResult) -> String {
        if !endpoint.statusCodes.isEmpty { return statusCodes(endpoint.statusCodes) }
        var counts: [String: Int] = [:]
        for sample in endpoint.samples where sample.answered {
            counts[sample.dns.map(\.rcode.description) ?? "open", default: 0] += 1
        }
        guard !counts.isEmpty else { return "-" }
        return counts.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
    }

    /// The line that explains a regression: `p95 31.0 ms is 2.07× the median 15.0 ms of the last 10 runs (limit 1.5×)`.
    static func describe(_ regression: Regression) -> String {
        let ratio = regression.baselineMedian > 0 ? regression.p95 / regression.baselineMedian : .infinity
        return "p95 \(DisplayText.decimal(regression.p95)) ms is \(DisplayText.decimal(ratio, places: 2))× the median "
            + "\(DisplayText.decimal(regression.baselineMedian)) ms of the last \(DisplayText.count(regression.runs, "run")) "
            + "(limit \(DisplayText.trimmed(regression.factor))×)"
    }
}
