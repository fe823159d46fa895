/// Dates, times and durations: RFC 3339 section 5.6 and its Appendix A (the ISO 8601 duration ABNF).
extension FormatChecker {
    /// Whether `value` is an RFC 3339 `date-time`: a `full-date`, `T` (or `t`), and a `full-time` with its offset.
    ///
    /// The day must exist in its month (February has 29 days in Gregorian leap years), and a leap second
    /// (`:60`) is accepted only where the time, moved to UTC by its offset, is 23:59:60. The date of a leap second
    /// is not checked against the list of real leap seconds. A space in place of `T` is not accepted.
    static func isValidDateTime(_ value: String) -> Bool {
        withBytes(value) { bytes in
            bytes.count >= 20 && scanFullDate(bytes, from: 0) && (bytes[10] | 0x20) == UInt8(ascii: "t")
                && scanFullTime(bytes, from: 11)
        }
    }

    /// Whether `value` is an RFC 3339 `full-date` (`YYYY-MM-DD`), with the day existing in its month.
    static func isValidDate(_ value: String) -> Bool {
        withBytes(value) { bytes in bytes.count == 10 && scanFullDate(bytes, from: 0) }
    }

    /// Whether `value` is an RFC 3339 `full-time`: `HH:MM:SS`, an optional fraction, and a required offset (`Z`,
    /// `z`, or `+HH:MM`/`-HH:MM`); the leap-second rule is that of ``isValidDateTime(_:)``.
    static func isValidTime(_ value: String) -> Bool {
        withBytes(value) { bytes in scanFullTime(bytes, from: 0) }
    }

    /// Whether `value` is a `duration` of RFC 3339 Appendix A: `P` followed by date elements in the order years,
    /// months, days (each present only after the one before it, as `dur-year = 1*DIGIT "Y" [dur-month]` says),
    /// and/or `T` with hours, minutes, seconds in the same way, or else weeks alone (`P2W`).
    ///
    /// Numbers are whole (no fraction, no sign, any count of digits). The designators are matched without regard to
    /// case, as RFC 5234 defines quoted ABNF strings (so `p1d` is accepted as RFC 3339 itself does for `t` and `z`).
    static func isValidDuration(_ value: String) -> Bool {
        withBytes(value) { bytes in scanDuration(bytes) }
    }

    // MARK: - Scanners

    /// The number written by the `count` ASCII digits at `start`, or `nil` when one of them is not a digit (or the
    /// text ends first).
    private static func number(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int, count: Int) -> Int? {
        guard start + count <= bytes.count else { return nil }
        var result = 0
        for index in start..<(start + count) {
            let byte = bytes[index]
            guard isDigit(byte) else { return nil }
            result = result * 10 + Int(byte &- 0x30)
        }
        return result
    }

    /// The number of days of `month` (1–12) in `year` by the proleptic Gregorian calendar.
    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Whether the ten bytes at `start` are a `full-date` (`date-fullyear "-" date-month "-" date-mday`).
    private static func scanFullDate(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        guard start + 10 <= bytes.count, let year = number(bytes, at: start, count: 4),
            bytes[start + 4] == UInt8(ascii: "-"), let month = number(bytes, at: start + 5, count: 2),
            bytes[start + 7] == UInt8(ascii: "-"), let day = number(bytes, at: start + 8, count: 2)
        else { return false }
        return (1...12).contains(month) && day >= 1 && day <= daysIn(month: month, year: year)
    }

    /// Whether the bytes from `start` to the end are a `full-time` (`partial-time time-offset`), with the leap
    /// second allowed only at 23:59:60 UTC.
    private static func scanFullTime(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        guard let hour = number(bytes, at: start, count: 2), hour <= 23,
            start + 8 < bytes.count, bytes[start + 2] == UInt8(ascii: ":"),
            let minute = number(bytes, at: start + 3, count: 2), minute <= 59,
            bytes[start + 5] == UInt8(ascii: ":"),
            let second = number(bytes, at: start + 6, count: 2), second <= 60
        else { return false }
        var index = start + 8
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
            guard index > fractionStart, index < bytes.count else { return false }
        }
        // The offset, in minutes east of UTC.
        let offset: Int
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return false }
            offset = 0
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, let offsetHour = number(bytes, at: index + 1, count: 2),
                offsetHour <= 23, bytes[index + 3] == UInt8(ascii: ":"),
                let offsetMinute = number(bytes, at: index + 4, count: 2), offsetMinute <= 59
            else { return false }
            let magnitude = offsetHour * 60 + offsetMinute
            offset = bytes[index] == UInt8(ascii: "+") ? magnitude : -magnitude
        default:
            return false
        }
        if second == 60 {
            // Local time minus the offset is UTC; a leap second is inserted only after 23:59:59 UTC.
            let minutesOfDay = 24 * 60
            let utcMinute = ((hour * 60 + minute - offset) % minutesOfDay + minutesOfDay) % minutesOfDay
            return utcMinute == 23 * 60 + 59
        }
        return true
    }

    /// Whether `bytes` are a `duration` (RFC 3339 Appendix A).
    private static func scanDuration(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 3, bytes[0] | 0x20 == UInt8(ascii: "p") else { return false }
        var index = 1
        /// Reads `1*DIGIT` and the designator after it, upper-cased; `nil` when either is missing.
        func element() -> UInt8? {
            let digitsStart = index
            while index < bytes.count && isDigit(bytes[index]) { index += 1 }
            guard index > digitsStart, index < bytes.count else { return nil }
            let designator = bytes[index] & ~0x20
            index += 1
            return designator
        }
        // The date part: Y, then M, then D, each only directly after the one before it; or W alone.
        var lastDate: UInt8 = 0
        var elements = 0
        while index < bytes.count && bytes[index] | 0x20 != UInt8(ascii: "t") {
            guard let designator = element() else { return false }
            switch (designator, lastDate) {
            case (UInt8(ascii: "Y"), 0), (UInt8(ascii: "M"), 0), (UInt8(ascii: "M"), UInt8(ascii: "Y")),
                (UInt8(ascii: "D"), 0), (UInt8(ascii: "D"), UInt8(ascii: "M")):
                lastDate = designator
            case (UInt8(ascii: "W"), 0):
                return index == bytes.count
            default:
                return false
            }
            elements += 1
        }
        if index == bytes.count { return elements > 0 }
        // The time part: H, then M, then S, in the same way; at least one element after the T.
        index += 1
        var lastTime: UInt8 = 0
        guard index < bytes.count else { return false }
        while index < bytes.count {
            guard let designator = element() else { return false }
            switch (designator, lastTime) {
            case (UInt8(ascii: "H"), 0), (UInt8(ascii: "M"), 0), (UInt8(ascii: "M"), UInt8(ascii: "H")),
                (UInt8(ascii: "S"), 0), (UInt8(ascii: "S"), UInt8(ascii: "M")):
                lastTime = designator
            default:
                return false
            }
        }
        return true
    }
}
