import Foundation
import JSONShape

/// Text helpers every report shares, so all of them print the same numbers the same way, whatever the locale.
enum ReportText {
    /// `2026-11-22T18:00:00Z`: ISO 8601 in UTC, whole seconds; with `milliseconds`, the milliseconds too when
    /// there are any (`2026-11-22T18:00:00.250Z`), so runs less than a second apart keep their order and spans.
    static func timestamp(_ date: Date, zone: Bool = true, milliseconds: Bool = false) -> String {
        var whole = date
        var fraction = ""
        if milliseconds {
            let total = (date.timeIntervalSince1970 * 1000).rounded()
            let seconds = (total / 1000).rounded(.down)
            whole = Date(timeIntervalSince1970: seconds)
            let millis = Int(total - seconds * 1000)
            if millis > 0 { fraction = "." + padded(millis, 3) }
        }
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole)
        let text =
            padded(parts.year ?? 0, 4) + "-" + padded(parts.month ?? 0, 2) + "-" + padded(parts.day ?? 0, 2) + "T"
            + padded(parts.hour ?? 0, 2) + ":" + padded(parts.minute ?? 0, 2) + ":" + padded(parts.second ?? 0, 2)
            + fraction
        return zone ? text + "Z" : text
    }

    /// Parses what ``timestamp(_:zone:)`` writes, with optional fractional seconds: `2026-11-22T18:00:00.25Z`.
    static func parseTimestamp(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        let separators: [(Int, Character)] = [(4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":")]
        for (index, separator) in separators where bytes[index] != separator.asciiValue {
            return nil
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            // Any number of fraction digits; each adds less, so no digit count can overflow.
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21 else { return nil }
            var scale = 0.1
            for byte in bytes[20..<(bytes.count - 1)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                fraction += Double(byte - UInt8(ascii: "0")) * scale
                scale /= 10
            }
        } else if bytes[19] != UInt8(ascii: "Z") {
            return nil
        }
        let components = DateComponents(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = utcCalendar.date(from: components) else { return nil }
        return date.addingTimeInterval(fraction)
    }

    /// `p50 dns 0.1, connect 0.3, tls 2.1, processing 200.4, transfer 0.2 ms; 4 of 5 samples reused a connection`.
    static func phaseBreakdown(_ phases: PhaseStats) -> String {
        let parts = PhaseTimings.names.map { name in "\(name) \(decimal(phases.phases[name]?.p50 ?? 0))" }
        var text = "p50 " + parts.joined(separator: ", ") + " ms"
        if phases.reusedConnections > 0 {
            text += "; \(phases.reusedConnections) of \(count(phases.count, "sample")) reused a connection"
        }
        return text
    }

    /// `verified, expires 2027-01-01T00:00:00Z (in 38.0 days)`, `NOT VERIFIED (insecure: true), expires …`.
    static func tlsSummary(_ tls: TLSReport, at now: Date) -> String {
        let state =
            tls.insecure
            ? "not verified (insecure: true)" : tls.verified ? "verified" : "failed (\(tls.failure ?? .handshake))"
        let days = tls.daysUntilExpiry(from: now)
        let when = days < 0 ? "\(decimal(-days)) days ago" : "in \(decimal(days)) days"
        return "\(state), certificate \(tls.subject) expires \(timestamp(tls.notAfter)) (\(when))"
    }

    /// `value` rounded to `places` decimals, always with that many decimals: `12.0`, `0.05`. Not locale dependent.
    static func decimal(_ value: Double, places: Int = 1) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : (value < 0 ? "-Inf" : "+Inf") }
        let scale = pow(10, Double(places))
        let scaled = (value * scale).rounded()
        guard abs(scaled) < 1e17 else { return String(value) }
        let whole = Int64(scaled)
        let sign = whole < 0 ? "-" : ""
        let magnitude = whole.magnitude
        let unit = UInt64(scale)
        let integer = magnitude / unit
        guard places > 0 else { return sign + String(integer) }
        let fractionText = String(magnitude % unit)
        return sign + String(integer) + "." + String(repeating: "0", count: places - fractionText.count) + fractionText
    }

    /// A value rounded to 0.1, as the JSON report writes it.
    static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    /// `1.23 s`: a run's wall time.
    static func seconds(_ duration: Duration) -> String { decimal(duration.timeInterval, places: 2) + " s" }

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

    /// `1 endpoint`, `3 endpoints`.
    static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }

    /// The line that explains a regression: `p95 31.0 ms is 2.07× the median 15.0 ms of the last 10 runs (limit 1.5×)`.
    static func describe(_ regression: Regression) -> String {
        let ratio = regression.baselineMedian > 0 ? regression.p95 / regression.baselineMedian : .infinity
        return "p95 \(decimal(regression.p95)) ms is \(decimal(ratio, places: 2))× the median "
            + "\(decimal(regression.baselineMedian)) ms of the last \(count(regression.runs, "run")) "
            + "(limit \(trimmed(regression.factor))×)"
    }

    /// A change as one line: `breaking /recipes/*/social_rank type-changed: number → string`.
    static func describe(_ change: SchemaChange) -> String {
        let file = change.file.map { "\($0): " } ?? ""
        return "\(change.severity) \(file)\(change.summary)"
    }

    /// `1.5`, `2`: a number without trailing zeros (up to 3 decimals).
    static func trimmed(_ value: Double) -> String {
        var text = decimal(value, places: 3)
        guard text.contains(".") else { return text }
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}
