import APIProbeShared
public import Foundation

/// A JSON document that keeps what `JSONSerialization` loses.
///
/// Numbers keep their literal text, so `1` stays an integer, `1.0` stays a number and an id beyond
/// 2^53 survives a round trip; objects keep their members in document order (the writer sorts them
/// when asked).
///
/// ```swift
/// let value = try JSONValue(parsing: Data(#"{"id": 12345678901234567890}"#.utf8))
/// value["id"]  // .number("12345678901234567890")
/// ```
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, as its literal text in the document.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// An object's members in document order.
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)): return Self.numbersEqual(a, b)
        case (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            let sortedA = a.sorted { $0.key < $1.key }
            let sortedB = b.sorted { $0.key < $1.key }
            return zip(sortedA, sortedB).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// Two number literals are equal when they are the same integer (compared exactly, digit by digit: beyond
    /// 2^53 a `Double` cannot tell 9007199254740993 from …992), or else the same `Double` (`1.50` and `1.5e0`).
    static func numbersEqual(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        if let x = integerDigits(a), let y = integerDigits(b) { return x == y }
        guard let x = Double(a), let y = Double(b) else { return false }
        return x == y
    }

    /// `-007` → `-7`, `-0` → `0`; `nil` for a literal with a fraction or an exponent.
    private static func integerDigits(_ literal: String) -> String? {
        var digits = Substring(literal)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        digits = digits.drop { $0 == "0" }
        if digits.isEmpty { return "0" }
        return negative ? "-" + String(digits) : String(digits)
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(value)
        case .number(let literal): hasher.combine(Double(literal) ?? 0)
        case .string(let value): hasher.combine(value)
        case .array(let items): hasher.combine(items)
        case .object(let members):
            hasher.combine(members.count)
            for member in members.sorted(by: { $0.key < $1.key }) {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }

    /// The member named `key` of an object, or `nil`.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    /// The value at a JSON Pointer (RFC 6901), or `nil` when the pointer leads nowhere.
    public func value(at pointer: String) -> JSONValue? {
        JSONPointer.tokens(of: pointer).flatMap(value(atTokens:))
    }

    /// The value at a pointer's tokens (unescaped, as `JSONPointer.tokens(of:)` reads them): for a pointer read
    /// once and looked up many times (a stub's body condition, for each request).
    package func value(atTokens tokens: [String]) -> JSONValue? {
        var current = self
        for token in tokens {
            switch current {
            case .object:
                guard let next = current[token] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(token), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// The name of this value's JSON type: `object`, `array`, `string`, `integer`, `number`, `boolean` or `null`.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number(let literal):
            return literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? "number" : "integer"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension JSONValue {
    /// Parses a JSON document.
    ///
    /// - Throws: ``InputError`` with the line and column of the first problem and no file name (name it with
    ///   ``InputError/inFile(_:)``).
    public init(parsing data: Data) throws(InputError) {
        try self.init(parsing: data, maximumDepth: maximumJSONDepth)
    }

    /// Parses a JSON document nested at most `maximumDepth` levels: a file that wraps documents read with
    /// the default limit (a fixture holds a body two levels down) reads with a limit that much higher.
    init(parsing data: Data, maximumDepth: Int) throws(InputError) {
        var parser = JSONParser(bytes: [UInt8](data), maximumDepth: maximumDepth)
        self = try parser.parseDocument()
    }

    /// Parses a file's bytes nested at most `maximumDepth` levels; an error names `file`.
    package init(parsing data: Data, file: String, maximumDepth: Int = maximumJSONDepth) throws(InputError) {
        do {
            try self.init(parsing: data, maximumDepth: maximumDepth)
        } catch {
            throw error.inFile(file)
        }
    }

    /// The document as a file of its own: two-space indentation, members sorted by their UTF-8 bytes, a trailing
    /// newline. Snapshots, manifests and reports are written so, and read back to the same bytes.
    package var fileData: Data {
        var out: [UInt8] = []
        out.reserveCapacity(1_024)
        JSONWriter(pretty: true, sortedKeys: true).write(self, into: &out, depth: 0)
        out.append(UInt8(ascii: "\n"))
        return Data(out)
    }

    /// Writes the document.
    ///
    /// - Parameters:
    ///   - pretty: two-space indentation, one member or item a line.
    ///   - sortedKeys: members sorted by key (byte order), for stable files.
    /// - Returns: UTF-8 text, without a trailing newline.
    public func serialized(pretty: Bool = false, sortedKeys: Bool = false) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        JSONWriter(pretty: pretty, sortedKeys: sortedKeys).write(self, into: &out, depth: 0)
        return Data(out)
    }
}

/// Maximum nesting of arrays and objects; deeper documents are rejected with a clear error
/// instead of overflowing the stack.
package let maximumJSONDepth = 512

struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0
    let maximumDepth: Int
    /// Whether values are built; `false` while a value is only checked (``skipValue()``).
    private var builds = true
    /// The member keys from the root to the one value kept as bytes (``parseDocument(keepingBytesAt:)``).
    private var keptPath: [String] = []
    /// The byte range of the value at `keptPath` (of its last occurrence, as ``JSONValue/subscript(_:)`` reads).
    private(set) var keptRange: Range<Int>?

    init(bytes: [UInt8], maximumDepth: Int = maximumJSONDepth) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func parseDocument() throws(InputError) -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw error(expected: "end of document") }
        return value
    }

    /// ``parseDocument()``, except that the value at the member keys `path` (`["response", "body"]`) is checked
    /// with the same errors but not built: `.null` stands in its place, and ``keptRange`` holds its bytes' range.
    mutating func parseDocument(keepingBytesAt path: [String]) throws(InputError) -> JSONValue {
        keptPath = path
        return try parseDocument()
    }

    /// Checks the value at the index and moves past it, building nothing.
    private mutating func skipValue() throws(InputError) {
        let outer = builds
        builds = false
        defer { builds = outer }
        _ = try parseValue()
    }

    func position(of offset: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        var i = 0
        let end = min(offset, bytes.count)
        while i < end {
            if bytes[i] == UInt8(ascii: "\n") {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return (line, end - lineStart + 1)
    }

    func describeFound(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of file" }
        let byte = bytes[offset]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    func error(expected: String, at offset: Int? = nil, found: String? = nil) -> InputError {
        let at = offset ?? index
        let (line, column) = position(of: at)
        return InputError(
            file: "", position: .lineColumn(line: line, column: column), expected: expected,
            found: found ?? describeFound(at: at))
    }

    mutating func skipWhitespace() {
        index = bytes.withUnsafeBufferPointer { buffer in
            var i = index
            while i < buffer.count {
                switch buffer[i] {
                case 0x20, 0x0A, 0x0D, 0x09: i += 1
                default: return i
                }
            }
            return i
        }
    }

    /// The first index from `start` on whose byte ends a plain run of a string: a quote, a backslash, a control
    /// character or a byte of a multi-byte sequence. Over the buffer itself, not the array's checked subscript:
    /// reading a fixture spent a fifth of `snapshot update`'s time in this scan, byte by byte (issue 25).
    private func plainRunEnd(from start: Int) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var i = start
            // Eight bytes at a time while none of them ends the run (SWAR: each test sets a byte's high bit).
            if let base = UnsafeRawPointer(buffer.baseAddress) {
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highs: UInt64 = 0x8080_8080_8080_8080
                while i + 8 <= buffer.count {
                    let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                    let quote = word ^ (ones &* 0x22)
                    let backslash = word ^ (ones &* 0x5C)
                    let stops =
                        ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                        | ((word &- ones &* 0x20) & ~word) | word
                    if stops & highs != 0 { break }
                    i += 8
                }
            }
            while i < buffer.count {
                let byte = buffer[i]
                if byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 { return i }
                i += 1
            }
            return i
        }
    }

    mutating func parseValue() throws(InputError) -> JSONValue {
        try parseValue(keptLevel: keptPath.isEmpty ? nil : 0)
    }

    /// `keptLevel`: how many keys of `keptPath` lead to this value, when all the ones before did.
    private mutating func parseValue(keptLevel: Int?) throws(InputError) -> JSONValue {
        guard index < bytes.count else { throw error(expected: "a JSON value") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(keptLevel: keptLevel)
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error(expected: "a JSON value")
        }
    }

    mutating func literal(_ word: String) throws(InputError) {
        let utf8 = Array(word.utf8)
        guard index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 else {
            throw error(expected: "a JSON value")
        }
        index += utf8.count
    }

    mutating func enter() throws(InputError) {
        depth += 1
        if depth > maximumDepth {
            throw error(expected: "at most \(maximumDepth) levels of nesting", found: "deeper nesting")
        }
    }

    private mutating func parseObject(keptLevel: Int?) throws(InputError) -> JSONValue {
        try enter()
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw error(expected: "a string key")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error(expected: "':'") }
            index += 1
            skipWhitespace()
            if let level = keptLevel, key == keptPath[level] {
                if level == keptPath.count - 1 {
                    let start = index
                    try skipValue()
                    keptRange = start..<index
                    members.append((key, .null))
                } else {
                    members.append((key, try parseValue(keptLevel: level + 1)))
                }
            } else if builds {
                members.append((key, try parseValue(keptLevel: nil)))
            } else {
                _ = try parseValue(keptLevel: nil)
            }
            skipWhitespace()
            guard index < bytes.count else { throw error(expected: "',' or '}'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            throw error(expected: "',' or '}'")
        }
    }

    mutating func parseArray() throws(InputError) -> JSONValue {
        try enter()
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            let item = try parseValue(keptLevel: nil)
            if builds { items.append(item) }
            skipWhitespace()
            guard index < bytes.count else { throw error(expected: "',' or ']'") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(items)
            }
            throw error(expected: "',' or ']'")
        }
    }

    mutating func parseNumber() throws(InputError) -> String {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 0x30 && bytes[i] <= 0x39 }
        guard isDigit(index) else { throw error(expected: "a digit") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) { throw error(expected: "'.', 'e' or the end of the number (no leading zeros)") }
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { throw error(expected: "a digit after '.'") }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard isDigit(index) else { throw error(expected: "a digit in the exponent") }
            while isDigit(index) { index += 1 }
        }
        return builds ? String(decoding: bytes[start..<index], as: UTF8.self) : ""
    }

    mutating func parseString() throws(InputError) -> String {
        let open = index
        index += 1
        var scalars: [UInt8] = []
        var runStart = index
        while true {
            index = plainRunEnd(from: index)
            guard index < bytes.count else {
                throw error(expected: "'\"' to close the string opened", at: open, found: "end of file")
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let end = index
                index += 1
                // Most strings hold no escape: made from the bytes in place, not through a copy.
                if runStart == open + 1 { return builds ? String(decoding: bytes[runStart..<end], as: UTF8.self) : "" }
                if builds { scalars.append(contentsOf: bytes[runStart..<end]) }
                break
            }
            if byte < 0x20 { throw error(expected: "an escaped control character", found: describeFound(at: index)) }
            if byte >= 0x80 {
                // RFC 8259 §8.1: text is UTF-8; a byte that is not part of a valid sequence is an error at its
                // place, never a silent U+FFFD.
                guard let length = UTF8Validation.sequenceLength(in: bytes, at: index) else {
                    throw error(
                        expected: "valid UTF-8 (RFC 8259)",
                        found: String(format: "byte 0x%02X", bytes[index]))
                }
                index += length
                continue
            }
            if byte == UInt8(ascii: "\\") {
                if builds { scalars.append(contentsOf: bytes[runStart..<index]) }
                index += 1
                guard index < bytes.count else { throw error(expected: "an escape sequence") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        {
                            index += 2
                            let low = try hex4()
                            if (0xDC00...0xDFFF).contains(low) {
                                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                            } else {
                                code = 0xFFFD
                            }
                        } else {
                            code = 0xFFFD
                        }
                    } else if (0xDC00...0xDFFF).contains(code) {
                        code = 0xFFFD
                    }
                    let scalar = UnicodeScalar(code) ?? "\u{FFFD}"
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error(expected: "a valid escape sequence", at: index - 1)
                }
                runStart = index
                continue
            }
            index += 1
        }
        return builds ? String(decoding: scalars, as: UTF8.self) : ""
    }

    mutating func hex4() throws(InputError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error(expected: "four hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw error(expected: "a hex digit")
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }
}

struct JSONWriter {
    var pretty: Bool
    var sortedKeys: Bool

    func write(_ value: JSONValue, into out: inout [UInt8], depth: Int) {
        switch value {
        case .null: out.append(contentsOf: Array("null".utf8))
        case .bool(let flag): out.append(contentsOf: Array((flag ? "true" : "false").utf8))
        case .number(let literal): out.append(contentsOf: Array(literal.utf8))
        case .string(let text): appendJSONString(text, to: &out)
        case .array(let items):
            if items.isEmpty {
                out.append(contentsOf: Array("[]".utf8))
                return
            }
            out.append(UInt8(ascii: "["))
            for (offset, item) in items.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, depth: depth + 1)
                write(item, into: &out, depth: depth + 1)
            }
            newline(&out, depth: depth)
            out.append(UInt8(ascii: "]"))
        case .object(var members):
            if members.isEmpty {
                out.append(contentsOf: Array("{}".utf8))
                return
            }
            if sortedKeys { members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
            out.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, depth: depth + 1)
                appendJSONString(member.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if pretty { out.append(UInt8(ascii: " ")) }
                write(member.value, into: &out, depth: depth + 1)
            }
            newline(&out, depth: depth)
            out.append(UInt8(ascii: "}"))
        }
    }

    func newline(_ out: inout [UInt8], depth: Int) {
        guard pretty else { return }
        out.append(UInt8(ascii: "\n"))
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }
}
