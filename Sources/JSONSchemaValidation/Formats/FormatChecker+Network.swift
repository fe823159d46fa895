import Foundation

/// IP addresses, host names, e-mail addresses and UUIDs.
extension FormatChecker {
    /// Whether `value` is an IPv4 address in dotted-quad form: `dec-octet` of RFC 3986 section 3.2.2, four times
    /// (each 0–255, ASCII digits, no leading zero, nothing before or after).
    static func isValidIPv4(_ value: String) -> Bool {
        withBytes(value) { bytes in scanIPv4(bytes, from: 0, to: bytes.count) }
    }

    /// Whether `value` is an IPv6 address in the text form of RFC 4291 section 2.2, as RFC 3986's `IPv6address`
    /// writes it: eight groups of one to four hex digits, at most one `::`, and optionally a dotted-quad IPv4
    /// address as the last 32 bits. Zone identifiers (`%eth0`), prefixes (`/64`) and brackets are not part of it.
    static func isValidIPv6(_ value: String) -> Bool {
        withBytes(value) { bytes in scanIPv6(bytes, from: 0, to: bytes.count) }
    }

    /// Whether `value` is a host name: RFC 1123 section 2.1 labels (1–63 ASCII letters, digits and hyphens, not
    /// starting or ending with a hyphen) joined by dots, at most 253 octets, without a trailing dot.
    ///
    /// A label that starts with `xn--` (in any case) must be an IDNA2008 A-label (RFC 5890 section 2.3.2.1): its
    /// Punycode must decode to a valid U-label (see ``isValidIDNHostname(_:requiringNFC:)``) that encodes back to
    /// the same text. When one of them decodes to right-to-left text, every label must satisfy the Bidi rule of
    /// RFC 5893. Other labels may have hyphens in their third and fourth positions (`ab--cd`), as RFC 1123 allows.
    static func isValidHostname(_ value: String) -> Bool {
        withBytes(value) { bytes in scanHostname(bytes, from: 0, to: bytes.count) }
    }

    /// Whether `value` is an e-mail address: an RFC 5321 `Mailbox` (`Local-part "@" ( Domain / address-literal )`).
    ///
    /// The local part is a dot-string of `atext` atoms or a quoted string (with quoted pairs), at most 64 octets.
    /// The domain is a host name as ``isValidHostname(_:)`` checks it (at most 253 octets), or an address literal:
    /// `[` an IPv4 address `]` or `[IPv6:` an IPv6 address `]`. RFC 5322's comments and folding white space are not
    /// part of an address.
    static func isValidEmail(_ value: String) -> Bool {
        withBytes(value) { bytes in scanMailbox(bytes, international: false) }
    }

    /// Whether `value` is an internationalized e-mail address: RFC 6531 section 3.3, which extends ``isValidEmail(_:)``
    /// with any non-ASCII character in the local part (`atext =/ UTF8-non-ascii`, in atoms and quoted strings alike)
    /// and U-labels in the domain.
    ///
    /// The domain is brought to Unicode Normalization Form C first (as RFC 5891 section 5.2 asks of a domain name
    /// before it is looked up) and must then be valid as ``isValidIDNHostname(_:requiringNFC:)`` says.
    static func isValidIDNEmail(_ value: String) -> Bool {
        withBytes(value) { bytes in scanMailbox(bytes, international: true) }
    }

    /// Whether `value` is a UUID in the hyphenated form of RFC 4122 section 3 (`8-4-4-4-12` hex digits, in any
    /// case). Any version and variant nibble is accepted.
    static func isValidUUID(_ value: String) -> Bool {
        withBytes(value) { bytes in
            guard bytes.count == 36 else { return false }
            for index in 0..<36 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard bytes[index] == UInt8(ascii: "-") else { return false }
                } else {
                    guard isHexDigit(bytes[index]) else { return false }
                }
            }
            return true
        }
    }

    // MARK: - Scanners shared with the URI formats

    /// Whether `bytes[start..<end]` is an RFC 3986 `IPv4address` (four `dec-octet`s).
    static func scanIPv4(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        var index = start
        for part in 0..<4 {
            if part > 0 {
                guard index < end, bytes[index] == UInt8(ascii: ".") else { return false }
                index += 1
            }
            let digitsStart = index
            var octet = 0
            while index < end && index - digitsStart < 3 && isDigit(bytes[index]) {
                octet = octet * 10 + Int(bytes[index] &- 0x30)
                index += 1
            }
            let length = index - digitsStart
            guard length > 0, octet <= 255, length == 1 || bytes[digitsStart] != UInt8(ascii: "0") else { return false }
        }
        return index == end
    }

    /// Whether `bytes[start..<end]` is an RFC 3986 `IPv6address`.
    static func scanIPv6(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        guard end - start >= 2 else { return false }
        var index = start
        var groups = 0
        var compressed = false
        if bytes[index] == UInt8(ascii: ":") {
            guard bytes[index + 1] == UInt8(ascii: ":") else { return false }
            compressed = true
            index += 2
            if index == end { return true }
        }
        while true {
            let groupStart = index
            while index < end && isHexDigit(bytes[index]) { index += 1 }
            if index < end && bytes[index] == UInt8(ascii: ".") {
                // The trailing IPv4 address, worth two groups, ends the address.
                guard scanIPv4(bytes, from: groupStart, to: end) else { return false }
                groups += 2
                break
            }
            guard (1...4).contains(index - groupStart) else { return false }
            groups += 1
            if index == end { break }
            guard bytes[index] == UInt8(ascii: ":"), index + 1 < end else { return false }
            index += 1
            if bytes[index] == UInt8(ascii: ":") {
                guard !compressed else { return false }
                compressed = true
                index += 1
                if index == end { break }
            }
        }
        return compressed ? groups <= 7 : groups == 8
    }

    /// Whether `bytes[start..<end]` is a host name as ``isValidHostname(_:)`` says.
    static func scanHostname(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        guard end > start, end - start <= 253 else { return false }
        var labelStart = start
        var bidi = IDNA.DomainBidi()
        while labelStart <= end {
            var labelEnd = labelStart
            while labelEnd < end && bytes[labelEnd] != UInt8(ascii: ".") { labelEnd += 1 }
            let length = labelEnd - labelStart
            guard length >= 1, length <= 63, bytes[labelStart] != UInt8(ascii: "-"),
                bytes[labelEnd - 1] != UInt8(ascii: "-")
            else { return false }
            for index in labelStart..<labelEnd {
                let byte = bytes[index]
                guard isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "-") else { return false }
            }
            if IDNA.hasACEPrefix(bytes, from: labelStart, to: labelEnd) {
                guard let verdict = IDNA.checkALabel(bytes, from: labelStart, to: labelEnd) else { return false }
                bidi.add(verdict)
            } else {
                bidi.addLDHLabel(startsWithLetter: isAlpha(bytes[labelStart]))
            }
            labelStart = labelEnd + 1
        }
        return bidi.isValid
    }

    // MARK: - E-mail

    /// Whether `byte` is RFC 5322 `atext` (ASCII letters, digits and ``!#$%&'*+-/=?^_`{|}~``).
    private static func isAtext(_ byte: UInt8) -> Bool {
        if isAlpha(byte) || isDigit(byte) { return true }
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "/"),
            UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Whether `bytes` are an RFC 5321 `Mailbox`, extended by RFC 6531 when `international` is true.
    private static func scanMailbox(_ bytes: UnsafeBufferPointer<UInt8>, international: Bool) -> Bool {
        let count = bytes.count
        var index = 0
        if count > 0 && bytes[0] == UInt8(ascii: "\"") {
            // Quoted-string: qtextSMTP (%d32-33 / %d35-91 / %d93-126) or quoted-pairSMTP (%d92 %d32-126).
            index = 1
            while true {
                guard index < count else { return false }
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    break
                } else if byte == UInt8(ascii: "\\") {
                    guard index + 1 < count, bytes[index + 1] >= 32, bytes[index + 1] <= 126 else { return false }
                    index += 2
                } else if byte >= 32 && byte <= 126 {
                    index += 1
                } else if byte >= 0x80 && international {
                    index += 1
                } else {
                    return false
                }
            }
        } else {
            // Dot-string: Atom *("." Atom).
            var atomLength = 0
            while index < count && bytes[index] != UInt8(ascii: "@") {
                let byte = bytes[index]
                if byte == UInt8(ascii: ".") {
                    guard atomLength > 0 else { return false }
                    atomLength = 0
                } else if isAtext(byte) || (byte >= 0x80 && international) {
                    atomLength += 1
                } else {
                    return false
                }
                index += 1
            }
            guard atomLength > 0 else { return false }
        }
        guard index <= 64, index < count, bytes[index] == UInt8(ascii: "@") else { return false }
        let domainStart = index + 1
        guard domainStart < count else { return false }
        if bytes[domainStart] == UInt8(ascii: "[") {
            guard bytes[count - 1] == UInt8(ascii: "]") else { return false }
            let literalStart = domainStart + 1
            let literalEnd = count - 1
            // The tag is matched without regard to case, as ABNF strings are (RFC 5234 section 2.3).
            if literalEnd - literalStart > 5, bytes[literalStart] | 0x20 == UInt8(ascii: "i"),
                bytes[literalStart + 1] | 0x20 == UInt8(ascii: "p"),
                bytes[literalStart + 2] | 0x20 == UInt8(ascii: "v"),
                bytes[literalStart + 3] == UInt8(ascii: "6"), bytes[literalStart + 4] == UInt8(ascii: ":")
            {
                return scanIPv6(bytes, from: literalStart + 5, to: literalEnd)
            }
            return scanIPv4(bytes, from: literalStart, to: literalEnd)
        }
        if !international || !bytes[domainStart...].contains(where: { $0 >= 0x80 }) {
            return scanHostname(bytes, from: domainStart, to: count)
        }
        var domain = String(decoding: UnsafeBufferPointer(rebasing: bytes[domainStart...]), as: UTF8.self)
        // Normalized by Foundation, whose Unicode data may be older than the standard library's: the name is not
        // required to come out in NFC, so a combining sequence Foundation does not know stays valid.
        if !IDNA.isNFC(domain) { domain = domain.precomposedStringWithCanonicalMapping }
        return isValidIDNHostname(domain, requiringNFC: false)
    }
}
