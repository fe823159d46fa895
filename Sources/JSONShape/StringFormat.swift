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
            if n == 10, isDate(s, 0) { return .date }
            if n >= 20, isDate(s, 0), isDateTimeRest(s) { return .dateTime }
            if n == 36, isUUID(s) { return .uuid }
            return isEmail(s) ? .email : nil
        }
        if n == 36, isUUID(s) { return .uuid }
        if isEmail(s) { return .email }
        if isURI(s) { return .uri }
        return nil
    }

    /// Whether a string fits the format at `code` in ``all`` (what ``detect(inUTF8:)`` would say, checking
    /// that format only: the formats exclude each other).
    static func fits(format code: UInt8, inUTF8 s: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = s.count
        guard n >= 3 else { return false }
        switch code {
        case 0: return n >= 20 && isDigit(s[0]) && isDate(s, 0) && isDateTimeRest(s)
        case 1: return n == 10 && isDate(s, 0)
        case 2: return isUUID(s)
        case 3: return isEmail(s)
        case 4: return !isDigit(s[0]) && isURI(s)
        default: return false
        }
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
        guard s.count == 36, s[8] == 45, s[13] == 45, s[18] == 45, s[23] == 45, let base = s.baseAddress else {
            return false
        }
        // Every byte a hex digit or a dash, and only those four dashes: eight bytes at a time, the last word
        // overlapping the one before (its new bytes, 32..<36, are then checked for dashes on their own).
        @inline(__always) func dashesIfHexOrDash(_ offset: Int) -> Int? {
            let word = Word.load(base + offset)
            let lower = (word | Word.repeating(0x20)) & Word.repeating(0x7F)
            let dash = Word.inRange(lower, 0x2D, 0x2D)
            // `| 0x20` folds A–F onto a–f, and a control byte onto a digit or a dash: controls are excluded.
            let member =
                (Word.inRange(lower, 0x30, 0x39) | Word.inRange(lower, 0x61, 0x66) | dash)
                & Word.inRange(word & Word.repeating(0x7F), 0x20, 0x7F) & ~word
            return member == Word.highs ? dash.nonzeroBitCount : nil
        }
        guard let a = dashesIfHexOrDash(0), let b = dashesIfHexOrDash(8), let c = dashesIfHexOrDash(16),
            let d = dashesIfHexOrDash(24), dashesIfHexOrDash(28) != nil
        else { return false }
        return a + b + c + d == 4 && s[32] != 45 && s[33] != 45 && s[34] != 45 && s[35] != 45
    }

    /// A set of bytes as two 64-bit masks over ASCII, tested without a branch a byte; `nonASCII` says whether
    /// the bytes from 0x80 up are in it. The sets are literals (a `static let` costs a once-check a call).
    private struct ByteSet {
        let low: UInt64
        let high: UInt64
        let nonASCII: Bool

        @inline(__always) func contains(_ c: UInt8) -> Bool {
            if c >= 128 { return nonASCII }
            return (c < 64 ? low >> UInt64(c) : high >> UInt64(c &- 64)) & 1 != 0
        }

        /// Whether any byte of `s` is in the set: `word` tests eight bytes at once (it must agree with the masks),
        /// the bytes of a string shorter than eight one by one.
        @inline(__always) func containsAny(of s: UnsafeBufferPointer<UInt8>, word: (UInt64) -> Bool) -> Bool {
            guard let base = s.baseAddress else { return false }
            guard s.count >= 8 else {
                for c in s where contains(c) { return true }
                return false
            }
            var i = 0
            while i + 8 <= s.count {
                if word(Word.load(base + i)) { return true }
                i += 8
            }
            // The last word overlaps the one before.
            return i < s.count && word(Word.load(base + s.count - 8))
        }
    }

    /// Bytes an e-mail address of ours never holds: controls, space, `"`, `(`, `)`, `,`, `:`, `;`, `<`, `>`.
    private static var notInEmail: ByteSet {
        ByteSet(low: 0x5C00_1305_FFFF_FFFF, high: 0x0000_0000_0000_0000, nonASCII: false)
    }
    /// Bytes a URI never holds: controls, space, `"`, `<`, `>`, `\`, DEL and non-ASCII.
    private static var notInURI: ByteSet {
        ByteSet(low: 0x5000_0005_FFFF_FFFF, high: 0x8000_0000_1000_0000, nonASCII: true)
    }

    private static func isEmail(_ s: UnsafeBufferPointer<UInt8>) -> Bool {
        let excluded = notInEmail.containsAny(of: s) { word in
            let flags =
                Word.anyBelow(word, 0x21) | Word.any(word, 0x22) | Word.any(word, 0x28) | Word.any(word, 0x29)
                | Word.any(word, 0x2C) | Word.any(word, 0x3A) | Word.any(word, 0x3B) | Word.any(word, 0x3C)
                | Word.any(word, 0x3E)
            return flags != 0
        }
        guard !excluded else { return false }
        var at = -1
        for i in 0..<s.count where s[i] == 64 {
            if at >= 0 { return false }
            at = i
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
        let excluded = notInURI.containsAny(of: s) { word in
            let flags =
                word & Word.highs | Word.anyBelow(word, 0x21) | Word.any(word, 0x22) | Word.any(word, 0x3C)
                | Word.any(word, 0x3E) | Word.any(word, 0x5C) | Word.any(word, 0x7F)
            return flags != 0
        }
        guard !excluded else { return false }
        if i + 3 < s.count, s[i + 1] == 47, s[i + 2] == 47 { return true }  // scheme://authority
        // Schemes without an authority that APIs use.
        var name: [UInt8] = []
        for j in 0..<scheme { name.append(s[j] | 0x20) }
        let known: [[UInt8]] = [Array("mailto".utf8), Array("urn".utf8), Array("tel".utf8), Array("data".utf8)]
        return known.contains(name) && scheme + 1 < s.count
    }
}
