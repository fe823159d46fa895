import Foundation

/// The question a `dns://` endpoint asks: a name and a record type.
package struct DNSQuery: Sendable, Hashable, CustomStringConvertible {
    /// The name asked for, without a trailing dot (`api.example.com`).
    var name: String
    var type: DNSRecordType

    package init(name: String, type: DNSRecordType = .a) {
        self.name = name
        self.type = type
    }

    package var description: String { "\(type) \(name)" }

    /// Why `name` cannot be asked for, or `nil`: labels of 1 to 63 ASCII letters, digits, `-` and `_`, 253
    /// characters in all (a trailing dot is allowed and dropped).
    package static func problem(with name: String) -> String? {
        let trimmed = name.hasSuffix(".") ? String(name.dropLast()) : name
        guard !trimmed.isEmpty, trimmed.utf8.count <= 253 else { return "a name of 1 to 253 characters" }
        for label in trimmed.split(separator: ".", omittingEmptySubsequences: false) {
            guard (1...63).contains(label.utf8.count) else { return "labels of 1 to 63 characters between dots" }
            guard
                label.unicodeScalars.allSatisfy({
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
                })
            else { return "ASCII letters, digits, - and _ (an internationalized name in its xn-- form)" }
        }
        return nil
    }
}

/// A DNS record type by its number, with the names of the common ones.
package struct DNSRecordType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let a = DNSRecordType(rawValue: 1)
    static let ns = DNSRecordType(rawValue: 2)
    static let cname = DNSRecordType(rawValue: 5)
    static let soa = DNSRecordType(rawValue: 6)
    static let ptr = DNSRecordType(rawValue: 12)
    static let mx = DNSRecordType(rawValue: 15)
    static let txt = DNSRecordType(rawValue: 16)
    static let aaaa = DNSRecordType(rawValue: 28)
    static let srv = DNSRecordType(rawValue: 33)
    static let caa = DNSRecordType(rawValue: 257)

    static let named: [(String, DNSRecordType)] = [
        ("A", .a), ("NS", .ns), ("CNAME", .cname), ("SOA", .soa), ("PTR", .ptr), ("MX", .mx), ("TXT", .txt),
        ("AAAA", .aaaa), ("SRV", .srv), ("CAA", .caa),
    ]

    /// `A`, `aaaa`, `TYPE65` (RFC 3597's form for any number).
    package init?(name: String) {
        let upper = name.uppercased()
        if let known = Self.named.first(where: { $0.0 == upper }) {
            self = known.1
        } else if upper.hasPrefix("TYPE"), let number = UInt16(upper.dropFirst(4)) {
            self.init(rawValue: number)
        } else {
            return nil
        }
    }

    package var description: String { Self.named.first { $0.1 == self }?.0 ?? "TYPE\(rawValue)" }
}

/// A DNS response code (RFC 1035, 6895), by its number, with the names of the common ones.
package struct DNSResponseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    package var rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let noError = DNSResponseCode(rawValue: 0)
    static let formatError = DNSResponseCode(rawValue: 1)
    static let serverFailure = DNSResponseCode(rawValue: 2)
    static let nameError = DNSResponseCode(rawValue: 3)
    static let notImplemented = DNSResponseCode(rawValue: 4)
    static let refused = DNSResponseCode(rawValue: 5)

    static let named: [(String, DNSResponseCode)] = [
        ("NOERROR", .noError), ("FORMERR", .formatError), ("SERVFAIL", .serverFailure), ("NXDOMAIN", .nameError),
        ("NOTIMP", .notImplemented), ("REFUSED", .refused),
    ]

    /// `NOERROR`, `nxdomain`, …
    package init?(name: String) {
        guard let known = Self.named.first(where: { $0.0 == name.uppercased() }) else { return nil }
        self = known.1
    }

    package var description: String { Self.named.first { $0.1 == self }?.0 ?? "RCODE\(rawValue)" }
}

/// What a DNS server answered: its response code and the records of the answer section.
package struct DNSAnswer: Sendable, Hashable {
    package var rcode: DNSResponseCode
    package var records: [DNSRecord]
    /// The server said it is authoritative for the name (the AA bit).
    var authoritative: Bool

    init(rcode: DNSResponseCode, records: [DNSRecord], authoritative: Bool = false) {
        self.rcode = rcode
        self.records = records
        self.authoritative = authoritative
    }

    /// Whether a record's value is `expected`, as `dig +short` prints values: names compared without case and
    /// without the trailing dot, a TXT record's text exactly, with or without its quotes.
    package func contains(_ expected: String) -> Bool { records.contains { $0.matches(expected) } }
}

/// One record of a DNS answer, its data written as `dig +short` writes it (`127.0.0.1`, `10 mail.example.com.`,
/// `"v=spf1 -all"`).
package struct DNSRecord: Sendable, Hashable, CustomStringConvertible {
    package var name: String
    package var type: DNSRecordType
    package var ttl: UInt32
    package var value: String

    init(name: String, type: DNSRecordType, ttl: UInt32, value: String) {
        self.name = name
        self.type = type
        self.ttl = ttl
        self.value = value
    }

    package var description: String { "\(type) \(value)" }

    /// Whether the record's value is `expected`: a TXT record's text exactly (quotes optional); any other value
    /// without case and without a trailing dot (`10 MAIL.example.com` is `10 mail.example.com.`).
    func matches(_ expected: String) -> Bool {
        func unquoted(_ text: String) -> String {
            text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"") ? String(text.dropFirst().dropLast()) : text
        }
        func name(_ text: String) -> String { (text.hasSuffix(".") ? String(text.dropLast()) : text).lowercased() }
        let wanted = expected.trimmingCharacters(in: .whitespaces)
        return type == .txt ? unquoted(value) == unquoted(wanted) : name(value) == name(wanted)
    }
}
