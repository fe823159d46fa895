import APIProbeShared
package import Foundation
import HTTPFixtures

/// How the status page and its badges write numbers, times and outside text: one place, so the page, the badges
/// and the tests that read them agree.
package enum StatusPageText {
    /// `99.95%`: cut (not rounded) to two decimals, so only a perfect record shows `100.00%`; `no data` without
    /// rounds.
    package static func percent(_ uptime: StatusPage.Uptime?) -> String {
        guard let uptime, uptime.total > 0 else { return "no data" }
        let hundredths = (uptime.passed * 10_000) / uptime.total
        let text = String(hundredths / 100) + "." + (hundredths % 100 < 10 ? "0" : "") + String(hundredths % 100)
        return text + "%"
    }

    /// `123.4 ms`, or `no data`.
    package static func milliseconds(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "no data" }
        return DisplayText.decimal(value, places: 1) + " ms"
    }

    /// `2026-11-22 18:05 UTC`.
    static func time(_ date: Date) -> String {
        let iso = DisplayText.timestamp(date)
        return String(iso.prefix(10)) + " " + String(iso.dropFirst(11).prefix(5)) + " UTC"
    }

    /// `2026-11-22T18:05:00Z`, for `<time datetime>`.
    static func machineTime(_ date: Date) -> String { DisplayText.timestamp(date) }

    /// `3 d 4 h`, `2 h 15 min`, `45 min`, `30 s`: the two largest units; under 10 s to a tenth (`1.5 s`), so a
    /// short incident of rounds a second apart never reads `0 s`.
    package static func duration(_ seconds: TimeInterval) -> String {
        if seconds < 9.95 {
            let tenths = (max(0, seconds) * 10).rounded()
            return tenths.truncatingRemainder(dividingBy: 10) == 0
                ? "\(Int(tenths / 10)) s" : DisplayText.decimal(tenths / 10, places: 1) + " s"
        }
        let total = Int(max(0, seconds).rounded())
        let days = total / 86_400
        let hours = (total % 86_400) / 3_600
        let minutes = (total % 3_600) / 60
        if days > 0 { return hours > 0 ? "\(days) d \(hours) h" : "\(days) d" }
        if hours > 0 { return minutes > 0 ? "\(hours) h \(minutes) min" : "\(hours) h" }
        if minutes > 0 { return "\(minutes) min" }
        return "\(total) s"
    }

    /// `text` safe inside HTML and XML text and attribute values (JUnit's rule: one XML escaping).
    static func escaped(_ text: String) -> String {
        JUnitReport.escape(text, attribute: true)
    }
}

/// Outside text on its way into a generated file: every secret the redactor knows (and credential-named URL
/// parameters) masked, then escaped.
struct OutsideText: Sendable {
    var redactor: Redactor

    /// Redacted and escaped.
    func callAsFunction(_ text: String) -> String { StatusPageText.escaped(redactor.redact(text: text)) }

    /// A URL, redacted as reports show URLs, then escaped.
    func url(_ text: String) -> String { StatusPageText.escaped(redactor.redact(text: redactor.redactURL(text))) }

    /// Redacted, not escaped (for file names).
    func plain(_ text: String) -> String { redactor.redact(text: text) }
}
