import Foundation

/// What an endpoint probes, told by the scheme of its `url`, as Gatus and blackbox_exporter have beside HTTP.
///
/// - `http`: `http://` and `https://` (or a path under `baseURL`): a request and its response.
/// - `tcp`: `tcp://host:port`: a TCP connection opens; its time is the latency (`dns` and `connect` phases).
/// - `tls`: `tls://host:port`: a TCP connection and a TLS handshake, with the `tls` checks of an `https` endpoint
///   (chain and host name, `tls.expiresIn`, `caFile`, a client certificate) and a `tls` phase.
/// - `dns`: `dns://server[:port]` with `dns: {name: …, type: A}`: one query to that server (UDP, and TCP when
///   the answer is truncated); `dns://` alone asks the first `nameserver` of `/etc/resolv.conf`. Checks:
///   `expect.rcode` (default `NOERROR`) and `expect.answers`.
///
/// An endpoint that is not `http` takes no `method`, `query`, `headers`, `body`, `auth`, `maxBodySize` or
/// `followRedirects`, and expects no `status`, `headers`, `body` or `schema` (an error naming the key); the same
/// expectations inherited from `defaults.expect` apply to its HTTP siblings only.
public enum ProbeKind: String, Sendable, Hashable, CaseIterable {
    case http
    case tcp
    case tls
    case dns

    /// The kind a URL's scheme names (`http` for anything else, a path included).
    public init(url text: String) {
        guard let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") else {
            self = .http
            return
        }
        self = ProbeKind(rawValue: text[..<colon].lowercased()).flatMap { $0 == .http ? nil : $0 } ?? .http
    }

    /// What reports show in the method column: `TCP`, `TLS`, `DNS`.
    public var label: String { rawValue.uppercased() }

    /// Endpoint keys only an HTTP endpoint takes.
    static let httpOnlyKeys = ["method", "query", "headers", "body", "auth", "maxBodySize", "followRedirects"]
    /// Expectations only an HTTP endpoint has.
    static let httpOnlyExpectations = ["status", "headers", "body", "schema"]
    /// Expectations only a DNS endpoint has.
    static let dnsOnlyExpectations = ["rcode", "answers"]
}

/// The question a `dns://` endpoint asks: a name and a record type.
public struct DNSQuery: Sendable, Hashable, CustomStringConvertible {
    /// The name asked for, without a trailing dot (`api.example.com`).
    public var name: String
    public var type: DNSRecordType

    public init(name: String, type: DNSRecordType = .a) {
        self.name = name
        self.type = type
    }

    public var description: String { "\(type) \(name)" }

    /// Why `name` cannot be asked for, or `nil`: labels of 1 to 63 ASCII letters, digits, `-` and `_`, 253
    /// characters in all (a trailing dot is allowed and dropped).
    static func problem(with name: String) -> String? {
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
public struct DNSRecordType: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let a = DNSRecordType(rawValue: 1)
    public static let ns = DNSRecordType(rawValue: 2)
    public static let cname = DNSRecordType(rawValue: 5)
    public static let soa = DNSRecordType(rawValue: 6)
    public static let ptr = DNSRecordType(rawValue: 12)
    public static let mx = DNSRecordType(rawValue: 15)
    public static let txt = DNSRecordType(rawValue: 16)
    public static let aaaa = DNSRecordType(rawValue: 28)
    public static let srv = DNSRecordType(rawValue: 33)
    public static let caa = DNSRecordType(rawValue: 257)

    static let named: [(String, DNSRecordType)] = [
        ("A", .a), ("NS", .ns), ("CNAME", .cname), ("SOA", .soa), ("PTR", .ptr), ("MX", .mx), ("TXT", .txt),
        ("AAAA", .aaaa), ("SRV", .srv), ("CAA", .caa),
    ]

    /// `A`, `aaaa`, `TYPE65` (RFC 3597's form for any number).
    public init?(name: String) {
        let upper = name.uppercased()
        if let known = Self.named.first(where: { $0.0 == upper }) {
            self = known.1
        } else if upper.hasPrefix("TYPE"), let number = UInt16(upper.dropFirst(4)) {
            self.init(rawValue: number)
        } else {
            return nil
        }
    }

    public var description: String { Self.named.first { $0.1 == self }?.0 ?? "TYPE\(rawValue)" }
}

/// A DNS response code (RFC 1035, 6895), by its number, with the names of the common ones.
public struct DNSResponseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let noError = DNSResponseCode(rawValue: 0)
    public static let formatError = DNSResponseCode(rawValue: 1)
    public static let serverFailure = DNSResponseCode(rawValue: 2)
    public static let nameError = DNSResponseCode(rawValue: 3)
    public static let notImplemented = DNSResponseCode(rawValue: 4)
    public static let refused = DNSResponseCode(rawValue: 5)

    static let named: [(String, DNSResponseCode)] = [
        ("NOERROR", .noError), ("FORMERR", .formatError), ("SERVFAIL", .serverFailure), ("NXDOMAIN", .nameError),
        ("NOTIMP", .notImplemented), ("REFUSED", .refused),
    ]

    /// `NOERROR`, `nxdomain`, …
    public init?(name: String) {
        guard let known = Self.named.first(where: { $0.0 == name.uppercased() }) else { return nil }
        self = known.1
    }

    public var description: String { Self.named.first { $0.1 == self }?.0 ?? "RCODE\(rawValue)" }
}

/// What a DNS server answered: its response code and the records of the answer section.
public struct DNSAnswer: Sendable, Hashable {
    public var rcode: DNSResponseCode
    public var records: [DNSRecord]
    /// The server said it is authoritative for the name (the AA bit).
    public var authoritative: Bool

    public init(rcode: DNSResponseCode, records: [DNSRecord], authoritative: Bool = false) {
        self.rcode = rcode
        self.records = records
        self.authoritative = authoritative
    }

    /// Whether a record's value is `expected`, as `dig +short` prints values: names compared without case and
    /// without the trailing dot, a TXT record's text exactly, with or without its quotes.
    public func contains(_ expected: String) -> Bool { records.contains { $0.matches(expected) } }
}

/// One record of a DNS answer, its data written as `dig +short` writes it (`127.0.0.1`, `10 mail.example.com.`,
/// `"v=spf1 -all"`).
public struct DNSRecord: Sendable, Hashable, CustomStringConvertible {
    public var name: String
    public var type: DNSRecordType
    public var ttl: UInt32
    public var value: String

    public init(name: String, type: DNSRecordType, ttl: UInt32, value: String) {
        self.name = name
        self.type = type
        self.ttl = ttl
        self.value = value
    }

    public var description: String { "\(type) \(value)" }

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
