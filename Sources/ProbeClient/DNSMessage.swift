import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A DNS message that is not what was asked for, or not a DNS message at all: where it went wrong and why.
struct MalformedDNSMessage: Error, Sendable, CustomStringConvertible {
    /// The byte offset in the message.
    var offset: Int
    var expected: String
    var description: String { "a malformed DNS answer: at byte \(offset), expected \(expected)" }
}

/// The wire format of RFC 1035: a query to send, and the answer read back, bounded (names of at most 255 bytes,
/// at most 128 compression pointers followed per name, every length checked against the message's end).
enum DNSMessage {
    /// A standard query for `query` with recursion desired.
    static func query(_ query: DNSQuery, id: UInt16) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(18 + query.name.utf8.count)
        append16(id, to: &bytes)
        append16(0x0100, to: &bytes)  // RD
        append16(1, to: &bytes)  // QDCOUNT
        append16(0, to: &bytes)
        append16(0, to: &bytes)
        append16(0, to: &bytes)
        for label in query.name.split(separator: ".") {
            bytes.append(UInt8(label.utf8.count))
            bytes += label.utf8
        }
        bytes.append(0)
        append16(query.type.rawValue, to: &bytes)
        append16(1, to: &bytes)  // IN
        return bytes
    }

    /// The ID of a message (`nil` when it is shorter than a header).
    static func id(of bytes: [UInt8]) -> UInt16? { bytes.count >= 12 ? UInt16(bytes[0]) << 8 | UInt16(bytes[1]) : nil }

    /// Whether the answer was cut to fit a datagram (the TC bit): it is then asked again over TCP.
    static func isTruncated(_ bytes: [UInt8]) -> Bool { bytes.count >= 12 && bytes[2] & 0x02 != 0 }

    /// The answer to `query`, sent with `id`.
    static func answer(_ bytes: [UInt8], to query: DNSQuery, id: UInt16) throws(MalformedDNSMessage) -> DNSAnswer {
        var reader = Reader(bytes: bytes)
        let messageID = try reader.u16("a 12-byte header")
        guard messageID == id else {
            throw MalformedDNSMessage(offset: 0, expected: "the query's ID \(id), found \(messageID)")
        }
        let flags = try reader.u16("a 12-byte header")
        guard flags & 0x8000 != 0 else { throw MalformedDNSMessage(offset: 2, expected: "a response (QR set)") }
        let questions = try reader.u16("a 12-byte header")
        let answers = try reader.u16("a 12-byte header")
        _ = try reader.u16("a 12-byte header")
        _ = try reader.u16("a 12-byte header")
        for _ in 0..<questions {
            let start = reader.offset
            let name = try reader.name()
            let type = try reader.u16("a question's type")
            _ = try reader.u16("a question's class")
            guard name.lowercased() == query.name.lowercased() + ".", type == query.type.rawValue else {
                throw MalformedDNSMessage(
                    offset: start,
                    expected: "the question asked (\(query)), found \(name) \(DNSRecordType(rawValue: type))")
            }
        }
        var records: [DNSRecord] = []
        for _ in 0..<answers {
            let name = try reader.name()
            let type = DNSRecordType(rawValue: try reader.u16("a record's type"))
            _ = try reader.u16("a record's class")
            let ttl = UInt32(try reader.u16("a record's TTL")) << 16 | UInt32(try reader.u16("a record's TTL"))
            let length = Int(try reader.u16("a record's data length"))
            guard reader.offset + length <= bytes.count else {
                throw MalformedDNSMessage(
                    offset: reader.offset,
                    expected: "\(length) bytes of record data, found \(bytes.count - reader.offset)")
            }
            let value = try reader.value(of: type, length: length)
            records.append(DNSRecord(name: name, type: type, ttl: ttl, value: value))
        }
        return DNSAnswer(
            rcode: DNSResponseCode(rawValue: flags & 0x000F), records: records, authoritative: flags & 0x0400 != 0)
    }

    private static func append16(_ value: UInt16, to bytes: inout [UInt8]) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    private struct Reader {
        var bytes: [UInt8]
        var offset = 0

        mutating func u8(_ expected: String) throws(MalformedDNSMessage) -> UInt8 {
            guard offset < bytes.count else { throw MalformedDNSMessage(offset: offset, expected: expected) }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func u16(_ expected: String) throws(MalformedDNSMessage) -> UInt16 {
            guard offset + 2 <= bytes.count else { throw MalformedDNSMessage(offset: offset, expected: expected) }
            defer { offset += 2 }
            return UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
        }

        /// A name at the cursor, compression pointers followed (at most 128, each pointing backwards), written
        /// with a trailing dot as `dig` writes it.
        mutating func name() throws(MalformedDNSMessage) -> String {
            var labels: [String] = []
            var length = 0
            var cursor = offset
            var jumped = false
            var jumps = 0
            while true {
                guard cursor < bytes.count else {
                    throw MalformedDNSMessage(offset: cursor, expected: "a name's label")
                }
                let size = Int(bytes[cursor])
                if size & 0xC0 == 0xC0 {
                    guard cursor + 1 < bytes.count else {
                        throw MalformedDNSMessage(offset: cursor, expected: "a two-byte compression pointer")
                    }
                    let target = (size & 0x3F) << 8 | Int(bytes[cursor + 1])
                    jumps += 1
                    guard target < cursor, jumps <= 128 else {
                        throw MalformedDNSMessage(offset: cursor, expected: "a compression pointer to an earlier name")
                    }
                    if !jumped { offset = cursor + 2 }
                    jumped = true
                    cursor = target
                    continue
                }
                guard size & 0xC0 == 0 else { throw MalformedDNSMessage(offset: cursor, expected: "a label length") }
                cursor += 1
                if size == 0 { break }
                guard cursor + size <= bytes.count else {
                    throw MalformedDNSMessage(offset: cursor, expected: "a label of \(size) bytes")
                }
                length += size + 1
                guard length <= 255 else {
                    throw MalformedDNSMessage(offset: cursor, expected: "a name of at most 255 bytes")
                }
                labels.append(Self.label(bytes[cursor..<cursor + size]))
                cursor += size
            }
            if !jumped { offset = cursor }
            return labels.joined(separator: ".") + "."
        }

        /// A label as text, bytes other than printable ASCII written `\DDD` as `dig` does.
        static func label(_ bytes: ArraySlice<UInt8>) -> String {
            var text = ""
            for byte in bytes {
                if byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ".") && byte != UInt8(ascii: "\\") {
                    text.unicodeScalars.append(UnicodeScalar(byte))
                } else {
                    text += String(format: "\\%03d", byte)
                }
            }
            return text
        }

        /// A record's data as `dig +short` writes it; the cursor ends after it.
        mutating func value(of type: DNSRecordType, length: Int) throws(MalformedDNSMessage) -> String {
            let end = offset + length
            defer { offset = end }
            func expect(_ size: Int, _ what: String) throws(MalformedDNSMessage) {
                guard length == size else {
                    throw MalformedDNSMessage(offset: offset, expected: "\(what) of \(size) bytes, found \(length)")
                }
            }
            switch type {
            case .a:
                try expect(4, "an IPv4 address")
                return bytes[offset..<end].map(String.init).joined(separator: ".")
            case .aaaa:
                try expect(16, "an IPv6 address")
                var address = in6_addr()
                withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes[offset..<end]) }
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else {
                    throw MalformedDNSMessage(offset: offset, expected: "an IPv6 address")
                }
                return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            case .cname, .ns, .ptr:
                return try name()
            case .mx:
                let preference = try u16("an MX preference")
                return "\(preference) \(try name())"
            case .srv:
                let priority = try u16("an SRV priority")
                let weight = try u16("an SRV weight")
                let port = try u16("an SRV port")
                return "\(priority) \(weight) \(port) \(try name())"
            case .soa:
                let primary = try name()
                let mailbox = try name()
                var numbers: [String] = []
                for _ in 0..<5 {
                    numbers.append(String(UInt32(try u16("an SOA number")) << 16 | UInt32(try u16("an SOA number"))))
                }
                return ([primary, mailbox] + numbers).joined(separator: " ")
            case .caa:
                let flags = try u8("a CAA flag")
                let size = Int(try u8("a CAA tag's length"))
                guard offset + size <= end else {
                    throw MalformedDNSMessage(offset: offset, expected: "a CAA tag of \(size) bytes")
                }
                let tag = Self.text(bytes[offset..<offset + size])
                offset += size
                return "\(flags) \(tag) \"\(Self.text(bytes[offset..<end]))\""
            case .txt:
                var strings: [String] = []
                while offset < end {
                    let size = Int(try u8("a TXT string's length"))
                    guard offset + size <= end else {
                        throw MalformedDNSMessage(offset: offset, expected: "a TXT string of \(size) bytes")
                    }
                    strings.append("\"" + Self.text(bytes[offset..<offset + size]) + "\"")
                    offset += size
                }
                return strings.joined(separator: " ")
            default:
                // RFC 3597's generic form, as dig writes a type it does not know.
                let hex = bytes[offset..<end].map { String(format: "%02X", $0) }.joined()
                return "\\# \(length)" + (hex.isEmpty ? "" : " \(hex)")
            }
        }

        /// A character string as `dig` writes it inside quotes.
        static func text(_ bytes: ArraySlice<UInt8>) -> String {
            var text = ""
            for byte in bytes {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    text += "\\" + String(UnicodeScalar(byte))
                } else if byte >= 0x20 && byte < 0x7F {
                    text.unicodeScalars.append(UnicodeScalar(byte))
                } else {
                    text += String(format: "\\%03d", byte)
                }
            }
            return text
        }
    }
}
