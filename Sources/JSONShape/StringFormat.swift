/// A format recognised on string values; a shape keeps one only when every string sample fits it.
///
/// ```swift
/// StringFormat.detect(in: "2026-11-22T18:00:00Z")  // .dateTime
/// ```
public struct StringFormat: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// RFC 3339 date and time: `2026-11-22T18:00:00Z`, `2026-11-22T18:00:00.125+01:00`.
    public static let dateTime = StringFormat(rawValue: "date-time")
    /// RFC 3339 full date: `2026-11-22`.
    public static let date = StringFormat(rawValue: "date")
    /// An absolute URI with a scheme: `https://example.com/x`, `mailto:a@b.c`, `urn:isbn:1`.
    public static let uri = StringFormat(rawValue: "uri")
    /// An RFC 4122 UUID in its 36-character form.
    public static let uuid = StringFormat(rawValue: "uuid")
    /// An e-mail address: `name@example.com`.
    public static let email = StringFormat(rawValue: "email")

    /// The formats apiprobe knows, in the order detection tries them.
    public static let all: [StringFormat] = [.dateTime, .date, .uuid, .email, .uri]

    public var description: String { rawValue }

    /// The format a string fits, or `nil`.
    public static func detect(in text: String) -> StringFormat? {
        var text = text
        return text.withUTF8 { detect(inUTF8: $0) }
    }

    /// The format of a string given as UTF-8 bytes (without quotes or escapes), or `nil`.
    static func detect(inUTF8 s: UnsafeBufferPointer<UInt8>) -> StringFormat? {
        let n = s.count
        guard n >= 3 else { return nil }
        let first = s[0]
        if isDigit(first) {
            if n == 10 { return isDate(s, 0) ? .date : (isUUID(s) ? .uuid : nil) }
            if n >= 20, isDate(s, 0), isDateTimeRest(s) { return .dateTime }
            if n == 36, isUUID(s) { return .uuid }
            return isEmail(s) ? .email : nil
        }
        if n == 36, isUUID(s) { return .uuid }
        if isEmail(s) { return .email }
        if isURI(s) { return .uri }
        return nil
    }

    @inline(__always) static func isDigit(_ c: UInt8) -> Bool { c &- 48 < 10 }
    @inline(__always) static func isHex(_ c: UInt8) -> Bool { c &- 48 < 10 || (c | 0x20) &- 97 < 6 }
    @inline(__always) static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) &- 97 < 26 }

    private static func digits(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ count: Int) -> Int? {
        guard from + count <= s.count else { return nil }
        var value = 0
        for i in from..<(from + count) {
            guard isDigit(s[i]) else { return nil }
            value = value * 10 + Int(s[i] &- 48)
        }
        return value
    }

    /// `YYYY-MM-DD` at `at`.
    static func isDate(_ s: UnsafeBufferPointer<UInt8>, _ at: Int) -> Bool {
        guard at + 10 <= s.count, s[at + 4] == 45, s[at + 7] == 45,
            digits(s, at, 4) != nil, let month = digits(s, at + 5, 2), let day = digits(s, at + 8, 2)
        else { return false }
        return (1...12).contains(month) && (1...31).contains(day)
    }

    /// `THH:MM:SS(.fff)?(Z|±HH:MM)` after a date.
    private static func isDateTimeRest(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        let t = s[10] | 0x20
        guard t == 116 || s[10] == 32, let hour = digits(s, 11, 2), s[13] == 58, let minute = digits(s, 14, 2),
            s[16] == 58, let second = digits(s, 17, 2), hour < 24, minute < 60, second <= 60
        else { return false }
        var i = 19
        if i < s.count, s[i] == 46 {
            i += 1
            let start = i
            while i < s.count, isDigit(s[i]) { i += 1 }
            guard i > start else { return false }
        }
        guard i < s.count else { return false }
        if s[i] | 0x20 == 122 { return i + 1 == s.count }
        guard s[i] == 43 || s[i] == 45, i + 6 == s.count, let h = digits(s, i + 1, 2), s[i + 3] == 58,
            let m = digits(s, i + 4, 2)
        else { return false }
        return h < 24 && m < 60
    }

    static func isUUID(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard s.count == 36 else { return false }
        for i in 0..<36 {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                if s[i] != 45 { return false }
            } else if !isHex(s[i]) {
                return false
            }
        }
        return true
    }

    private static func isEmail(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        var at = -1
        for i in 0..<s.count {
            let c = s[i]
            if c <= 32 || c == 34 || c == 60 || c == 62 || c == 40 || c == 41 || c == 44 || c == 59 || c == 58 {
                return false
            }
            if c == 64 {
                if at >= 0 { return false }
                at = i
            }
        }
        guard at > 0, at < s.count - 3 else { return false }
        var dot = -1
        for i in (at + 1)..<s.count where s[i] == 46 { dot = i }
        return dot > at + 1 && dot < s.count - 1 && s[at + 1] != 46
    }

    private static func isURI(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        guard isAlpha(s[0]) else { return false }
        var i = 1
        while i < s.count, isAlpha(s[i]) || isDigit(s[i]) || s[i] == 43 || s[i] == 45 || s[i] == 46 { i += 1 }
        guard i < s.count, s[i] == 58 else { return false }
        let scheme = i
        for j in 0..<s.count where s[j] <= 32 || s[j] == 34 || s[j] == 60 || s[j] == 62 || s[j] == 92 || s[j] >= 127 {
            return false
        }
        if i + 3 < s.count, s[i + 1] == 47, s[i + 2] == 47 { return true }  // scheme://authority
        // Schemes without an authority that APIs use.
        var name: [UInt8] = []
        for j in 0..<scheme { name.append(s[j] | 0x20) }
        let known: [[UInt8]] = [Array("mailto".utf8), Array("urn".utf8), Array("tel".utf8), Array("data".utf8)]
        return known.contains(name) && scheme + 1 < s.count
    }
}
