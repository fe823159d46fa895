/// URIs and IRIs (RFC 3986, RFC 3987), URI templates (RFC 6570) and JSON Pointers (RFC 6901 and Relative JSON
/// Pointer).
extension FormatChecker {
    /// Whether `value` is an RFC 3986 `URI`: a scheme, `:`, a hierarchical part, and an optional query and
    /// fragment, all in ASCII with other octets percent-encoded.
    ///
    /// The check is syntactic, by the ABNF: a host is an IP literal (`[` IPv6 or IPvFuture `]`) or a `reg-name`, so
    /// `http://999.999.999.999/` is valid (a registered name), and IPv6 zone identifiers (RFC 6874) are not accepted.
    static func isValidURI(_ value: String) -> Bool {
        withBytes(value) { bytes in
            var scanner = URIScanner(bytes: bytes, international: false)
            return scanner.scanReference(requireScheme: true)
        }
    }

    /// Whether `value` is an RFC 3986 `URI-reference`: a `URI`, or a relative reference (whose first path segment
    /// has no colon unless a slash comes before it). The empty string is a valid reference.
    static func isValidURIReference(_ value: String) -> Bool {
        withBytes(value) { bytes in
            var scanner = URIScanner(bytes: bytes, international: false)
            return scanner.scanReference(requireScheme: false)
        }
    }

    /// Whether `value` is an RFC 3987 `IRI`: a ``isValidURI(_:)`` in which the characters of `ucschar` may appear
    /// unencoded wherever unreserved ones may, and those of `iprivate` in the query.
    static func isValidIRI(_ value: String) -> Bool {
        withBytes(value) { bytes in
            var scanner = URIScanner(bytes: bytes, international: true)
            return scanner.scanReference(requireScheme: true)
        }
    }

    /// Whether `value` is an RFC 3987 `IRI-reference`: an IRI or a relative IRI reference.
    static func isValidIRIReference(_ value: String) -> Bool {
        withBytes(value) { bytes in
            var scanner = URIScanner(bytes: bytes, international: true)
            return scanner.scanReference(requireScheme: false)
        }
    }

    /// Whether `value` is an RFC 6570 `URI-Template`: literals and `{…}` expressions of level 4.
    ///
    /// An expression has an optional operator (`+ # . / ; ? &`, or one of `= , ! @ |` that the ABNF reserves for
    /// future extensions and still accepts), then one or more comma-separated variable names, each with an optional
    /// prefix (`:1` to `:9999`, no leading zero) or explode (`*`) modifier. Literals are ASCII characters other than
    /// controls, space, `"`, `<`, `>`, `\`, `^`, `` ` ``, `{`, `|` and `}`, percent-encoded octets, and the
    /// `ucschar` and `iprivate` characters of RFC 3987. The apostrophe is accepted, as the text of RFC 6570 section
    /// 2.1 and its ABNF disagree about it (Errata ID 6937) and the JSON Schema Test Suite expects it.
    static func isValidURITemplate(_ value: String) -> Bool {
        withBytes(value) { bytes in scanURITemplate(bytes) }
    }

    /// Whether `value` is a JSON Pointer (RFC 6901 section 3): empty, or `/`-prefixed reference tokens in which
    /// every `~` is followed by `0` or `1`.
    static func isValidJSONPointer(_ value: String) -> Bool {
        withBytes(value) { bytes in scanJSONPointer(bytes, from: 0) }
    }

    /// Whether `value` is a Relative JSON Pointer (draft-bhutton-relative-json-pointer-00, which JSON Schema
    /// 2020-12 cites): a non-negative integer without leading zeros, an optional index adjustment (`+` or `-` and a
    /// positive integer), then either `#` alone or a JSON Pointer.
    ///
    /// The index adjustment is accepted for every draft; the earlier draft that draft-07 cites had no such part.
    static func isValidRelativeJSONPointer(_ value: String) -> Bool {
        withBytes(value) { bytes in
            let count = bytes.count
            guard count > 0, isDigit(bytes[0]) else { return false }
            var index = 1
            if bytes[0] != UInt8(ascii: "0") {
                while index < count && isDigit(bytes[index]) { index += 1 }
            }
            if index < count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
                guard index < count, isDigit(bytes[index]), bytes[index] != UInt8(ascii: "0") else { return false }
                while index < count && isDigit(bytes[index]) { index += 1 }
            }
            if index < count && bytes[index] == UInt8(ascii: "#") { return index + 1 == count }
            return scanJSONPointer(bytes, from: index)
        }
    }

    // MARK: - Scanners

    /// Whether `bytes[start...]` is a JSON Pointer.
    private static func scanJSONPointer(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        guard start < bytes.count else { return true }
        guard bytes[start] == UInt8(ascii: "/") else { return false }
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "~") {
                guard index + 1 < bytes.count,
                    bytes[index + 1] == UInt8(ascii: "0") || bytes[index + 1] == UInt8(ascii: "1")
                else { return false }
                index += 2
            } else {
                index += 1
            }
        }
        return true
    }

    /// Whether `bytes` are a URI template.
    private static func scanURITemplate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        var index = 0
        while index < count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "{") {
                index += 1
                guard scanTemplateExpression(bytes, at: &index) else { return false }
            } else if byte == UInt8(ascii: "%") {
                guard index + 2 < count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return false
                }
                index += 3
            } else if byte < 0x80 {
                guard ASCIISet.templateLiteral.contains(byte) else { return false }
                index += 1
            } else {
                let (scalar, length) = decodeScalar(bytes, at: index)
                guard isUCSChar(scalar) || isPrivateUse(scalar) else { return false }
                index += length
            }
        }
        return true
    }

    /// Reads a template expression after its `{`, up to and including its `}`.
    private static func scanTemplateExpression(_ bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Bool {
        let count = bytes.count
        guard index < count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "+"), UInt8(ascii: "#"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ";"),
            UInt8(ascii: "?"), UInt8(ascii: "&"), UInt8(ascii: "="), UInt8(ascii: ","), UInt8(ascii: "!"),
            UInt8(ascii: "@"), UInt8(ascii: "|"):
            index += 1
        default:
            break
        }
        while true {
            // varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded
            var afterDot = true
            while index < count {
                let byte = bytes[index]
                if isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "_") {
                    index += 1
                } else if byte == UInt8(ascii: "%") {
                    guard index + 2 < count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                        return false
                    }
                    index += 3
                } else if byte == UInt8(ascii: ".") && !afterDot {
                    index += 1
                    afterDot = true
                    continue
                } else {
                    break
                }
                afterDot = false
            }
            guard !afterDot, index < count else { return false }
            // modifier-level4 = prefix / explode; prefix = ":" max-length; max-length = %x31-39 0*3DIGIT
            if bytes[index] == UInt8(ascii: ":") {
                index += 1
                guard index < count, isDigit(bytes[index]), bytes[index] != UInt8(ascii: "0") else { return false }
                let digitsStart = index
                while index < count && isDigit(bytes[index]) { index += 1 }
                guard index - digitsStart <= 4, index < count else { return false }
            } else if bytes[index] == UInt8(ascii: "*") {
                index += 1
                guard index < count else { return false }
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default:
                return false
            }
        }
    }

    /// The scalar whose UTF-8 encoding starts at `index` (a lead byte of a multi-byte sequence in valid UTF-8), and
    /// the length of that encoding.
    private static func decodeScalar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int) {
        let lead = UInt32(bytes[index])
        if lead < 0xE0 {
            return ((lead & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F), 2)
        } else if lead < 0xF0 {
            return ((lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6 | UInt32(bytes[index + 2] & 0x3F), 3)
        }
        let value =
            (lead & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12 | UInt32(bytes[index + 2] & 0x3F) << 6
            | UInt32(bytes[index + 3] & 0x3F)
        return (value, 4)
    }

    /// Whether `value` is RFC 3987 `ucschar`.
    private static func isUCSChar(_ value: UInt32) -> Bool {
        switch value {
        case 0xA0...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFEF: return true
        case 0x10000...0xEFFFD:
            // Each plane but its last two code points (the noncharacters), and not U+E0000–U+E0FFF.
            return value & 0xFFFF <= 0xFFFD && !(0xE0000...0xE0FFF).contains(value)
        default: return false
        }
    }

    /// Whether `value` is RFC 3987 `iprivate`.
    private static func isPrivateUse(_ value: UInt32) -> Bool {
        switch value {
        case 0xE000...0xF8FF, 0xF0000...0xFFFFD, 0x100000...0x10FFFD: return true
        default: return false
        }
    }

    /// A set of ASCII bytes, as two 64-bit masks.
    private struct ASCIISet {
        /// Bytes 0–63.
        var low: UInt64 = 0
        /// Bytes 64–127.
        var high: UInt64 = 0

        /// The set of the characters of `members` and of the ranges between the pairs of `ranges`.
        init(_ members: String, ranges: [(Unicode.Scalar, Unicode.Scalar)] = []) {
            for scalar in members.unicodeScalars { insert(UInt8(scalar.value)) }
            for (first, last) in ranges {
                for value in first.value...last.value { insert(UInt8(value)) }
            }
        }

        /// Adds `byte` (below 128).
        private mutating func insert(_ byte: UInt8) {
            if byte < 64 { low |= 1 << UInt64(byte) } else { high |= 1 << UInt64(byte - 64) }
        }

        /// Whether `byte` is in the set (never for a byte of 128 or more).
        @inline(__always)
        func contains(_ byte: UInt8) -> Bool {
            if byte < 64 { return low & (1 << UInt64(byte)) != 0 }
            if byte < 128 { return high & (1 << UInt64(byte - 64)) != 0 }
            return false
        }

        /// `unreserved` and `sub-delims` of RFC 3986: the characters allowed in a `reg-name` (with percent-encoding).
        static let registeredName = ASCIISet(
            "-._~!$&'()*+,;=", ranges: [("A", "Z"), ("a", "z"), ("0", "9")])
        /// The characters of `userinfo`: those of a `reg-name` and `:`.
        static let userInfo = ASCIISet(
            "-._~!$&'()*+,;=:", ranges: [("A", "Z"), ("a", "z"), ("0", "9")])
        /// The characters of `pchar`: those of a `reg-name`, `:` and `@`.
        static let pathCharacter = ASCIISet(
            "-._~!$&'()*+,;=:@", ranges: [("A", "Z"), ("a", "z"), ("0", "9")])
        /// The characters after `v` and the hex digits of an IPvFuture: `unreserved`, `sub-delims` and `:`.
        static let futureAddress = userInfo
        /// The ASCII characters of RFC 6570 `literals`, with the apostrophe.
        static let templateLiteral = ASCIISet(
            "!#$&'=]_~", ranges: [("(", ";"), ("?", "["), ("a", "z")])
    }

    /// A scanner of a URI or IRI reference over its UTF-8 bytes.
    private struct URIScanner {
        /// The reference.
        let bytes: UnsafeBufferPointer<UInt8>
        /// Whether IRI characters (`ucschar`, and `iprivate` in the query) are allowed.
        let international: Bool

        /// The length of the character at `index` when it belongs to `set`, is a percent-encoded octet, or (for an
        /// IRI) is `ucschar` or, when `allowsPrivateUse`, `iprivate`; 0 when it does not.
        func characterLength(at index: Int, in set: ASCIISet, allowsPrivateUse: Bool = false) -> Int {
            let byte = bytes[index]
            if byte < 0x80 {
                if set.contains(byte) { return 1 }
                guard byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHexDigit(bytes[index + 1]),
                    isHexDigit(bytes[index + 2])
                else { return 0 }
                return 3
            }
            guard international else { return 0 }
            let (scalar, length) = decodeScalar(bytes, at: index)
            return isUCSChar(scalar) || (allowsPrivateUse && isPrivateUse(scalar)) ? length : 0
        }

        /// Whether the whole text is a URI (or IRI), or with `requireScheme` false a URI (IRI) reference.
        mutating func scanReference(requireScheme: Bool) -> Bool {
            let count = bytes.count
            var index = 0
            // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
            var hasScheme = false
            if count > 0 && isAlpha(bytes[0]) {
                var end = 1
                while end < count {
                    let byte = bytes[end]
                    guard
                        isAlpha(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
                            || byte == UInt8(ascii: ".")
                    else { break }
                    end += 1
                }
                if end < count && bytes[end] == UInt8(ascii: ":") {
                    hasScheme = true
                    index = end + 1
                }
            }
            guard hasScheme || !requireScheme else { return false }
            if index + 1 < count && bytes[index] == UInt8(ascii: "/") && bytes[index + 1] == UInt8(ascii: "/") {
                index += 2
                let authorityStart = index
                while index < count && bytes[index] != UInt8(ascii: "/") && bytes[index] != UInt8(ascii: "?")
                    && bytes[index] != UInt8(ascii: "#")
                {
                    index += 1
                }
                guard scanAuthority(from: authorityStart, to: index) else { return false }
            } else if !hasScheme {
                // path-noscheme: the first segment has no colon.
                while index < count && bytes[index] != UInt8(ascii: "/") && bytes[index] != UInt8(ascii: "?")
                    && bytes[index] != UInt8(ascii: "#")
                {
                    guard bytes[index] != UInt8(ascii: ":") else { return false }
                    let length = characterLength(at: index, in: .pathCharacter)
                    guard length > 0 else { return false }
                    index += length
                }
            }
            // The rest of the path: segments of pchar separated by slashes.
            while index < count && bytes[index] != UInt8(ascii: "?") && bytes[index] != UInt8(ascii: "#") {
                if bytes[index] == UInt8(ascii: "/") {
                    index += 1
                    continue
                }
                let length = characterLength(at: index, in: .pathCharacter)
                guard length > 0 else { return false }
                index += length
            }
            // query = *( pchar / "/" / "?" ), with iprivate in an IRI.
            if index < count && bytes[index] == UInt8(ascii: "?") {
                index += 1
                while index < count && bytes[index] != UInt8(ascii: "#") {
                    if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") {
                        index += 1
                        continue
                    }
                    let length = characterLength(at: index, in: .pathCharacter, allowsPrivateUse: true)
                    guard length > 0 else { return false }
                    index += length
                }
            }
            // fragment = *( pchar / "/" / "?" )
            if index < count && bytes[index] == UInt8(ascii: "#") {
                index += 1
                while index < count {
                    if bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?") {
                        index += 1
                        continue
                    }
                    let length = characterLength(at: index, in: .pathCharacter)
                    guard length > 0 else { return false }
                    index += length
                }
            }
            return true
        }

        /// Whether `bytes[start..<end]` is an `authority`: `[ userinfo "@" ] host [ ":" port ]`.
        func scanAuthority(from start: Int, to end: Int) -> Bool {
            var index = start
            if let at = bytes[start..<end].firstIndex(of: UInt8(ascii: "@")) {
                while index < at {
                    let length = characterLength(at: index, in: .userInfo)
                    guard length > 0 else { return false }
                    index += length
                }
                index = at + 1
            }
            if index < end && bytes[index] == UInt8(ascii: "[") {
                guard let close = bytes[index..<end].firstIndex(of: UInt8(ascii: "]")),
                    scanIPLiteral(from: index + 1, to: close)
                else { return false }
                index = close + 1
            } else {
                while index < end && bytes[index] != UInt8(ascii: ":") {
                    let length = characterLength(at: index, in: .registeredName)
                    guard length > 0 else { return false }
                    index += length
                }
            }
            if index < end {
                guard bytes[index] == UInt8(ascii: ":") else { return false }
                index += 1
                while index < end {
                    guard isDigit(bytes[index]) else { return false }
                    index += 1
                }
            }
            return true
        }

        /// Whether `bytes[start..<end]` is the inside of an `IP-literal`: an `IPv6address` or an `IPvFuture`
        /// (`v` 1*HEXDIG `.` 1*( unreserved / sub-delims / `:` ), the `v` in either case).
        func scanIPLiteral(from start: Int, to end: Int) -> Bool {
            guard start < end else { return false }
            guard bytes[start] | 0x20 == UInt8(ascii: "v") else { return scanIPv6(bytes, from: start, to: end) }
            var index = start + 1
            while index < end && isHexDigit(bytes[index]) { index += 1 }
            guard index > start + 1, index < end, bytes[index] == UInt8(ascii: ".") else { return false }
            index += 1
            guard index < end else { return false }
            while index < end {
                guard ASCIISet.futureAddress.contains(bytes[index]) else { return false }
                index += 1
            }
            return true
        }
    }
}
