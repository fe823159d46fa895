package import Foundation

/// Numbers, counts and times as every message, report and file of apiprobe writes them, whatever the locale:
/// `12.0`, `3 endpoints`, `2026-11-22T18:00:00Z`. One place, so a report, a history line, an alert and an error
/// message print the same value the same way.
package enum DisplayText {
    /// `2026-11-22T18:00:00Z`: ISO 8601 in UTC, whole seconds; with `milliseconds`, the milliseconds too when
    /// there are any (`2026-11-22T18:00:00.250Z`), so runs less than a second apart keep their order and spans.
    package static func timestamp(_ date: Date, zone: Bool = true, milliseconds: Bool = false) -> String {
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
    package static func parseTimestamp(_ text: String) -> Date? {
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

    /// `value` rounded to `places` decimals, always with that many decimals: `12.0`, `0.05`. Not locale dependent.
    package static func decimal(_ value: Double, places: Int = 1) -> String {
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

    /// `1.23 s`: a run's wall time.
    package static func seconds(_ duration: Duration) -> String { decimal(duration.timeInterval, places: 2) + " s" }

    /// `1 endpoint`, `3 endpoints`.
    package static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? noun + "s")"
    }

    /// `1.5`, `2`: a number without trailing zeros (up to 3 decimals).
    package static func trimmed(_ value: Double) -> String {
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
