import APIProbeShared
import Foundation

/// The `format` keyword as an assertion (JSON Schema 2020-12 format-assertion vocabulary; draft-07 and draft-04
/// formats).
///
/// Each format is checked by a scanner over the string's UTF-8 bytes or Unicode scalars, written from the ABNF of the
/// RFC that defines it; no regular expressions are involved. The checks are the same in every draft: a format that an
/// older draft did not define (`duration`, `uuid`) is still checked when a schema of that draft names it, which is
/// what the standard allows for formats a validator knows.
///
/// The families live in files of their own: dates and durations (`FormatChecker+Dates.swift`), network addresses,
/// host names, e-mail addresses and UUIDs (`FormatChecker+Network.swift`), URIs, IRIs, URI templates and JSON
/// Pointers (`FormatChecker+URI.swift`), and IDNA2008 (`FormatChecker+IDNA.swift`, with its Unicode data in
/// `FormatChecker+IDNATables.swift`).
enum FormatChecker {
    /// Whether `value` is valid for `format`: `nil` when the format is not one this checker knows (the validator then
    /// ignores it, as the standard says for unknown formats).
    ///
    /// Format names are matched exactly (they are case-sensitive in JSON Schema). The first byte of the name picks
    /// the few names to compare, so finding the check costs about as much for every format.
    static func isValid(_ value: String, format: String) -> Bool? {
        switch format.utf8.first {
        case UInt8(ascii: "d"):
            switch format {
            case "date-time": return isValidDateTime(value)
            case "date": return isValidDate(value)
            case "duration": return isValidDuration(value)
            default: return nil
            }
        case UInt8(ascii: "e"):
            return format == "email" ? isValidEmail(value) : nil
        case UInt8(ascii: "h"):
            return format == "hostname" ? isValidHostname(value) : nil
        case UInt8(ascii: "i"):
            switch format {
            case "idn-email": return isValidIDNEmail(value)
            case "idn-hostname": return isValidIDNHostname(value)
            case "ipv4": return isValidIPv4(value)
            case "ipv6": return isValidIPv6(value)
            case "iri": return isValidIRI(value)
            case "iri-reference": return isValidIRIReference(value)
            default: return nil
            }
        case UInt8(ascii: "j"):
            return format == "json-pointer" ? isValidJSONPointer(value) : nil
        case UInt8(ascii: "r"):
            switch format {
            case "relative-json-pointer": return isValidRelativeJSONPointer(value)
            case "regex": return ECMARegexSyntax.isValid(value)
            default: return nil
            }
        case UInt8(ascii: "t"):
            return format == "time" ? isValidTime(value) : nil
        case UInt8(ascii: "u"):
            switch format {
            case "uri": return isValidURI(value)
            case "uri-reference": return isValidURIReference(value)
            case "uri-template": return isValidURITemplate(value)
            case "uuid": return isValidUUID(value)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// The formats `isValid` knows.
    static let knownFormats: Set<String> = [
        "date-time", "date", "time", "duration", "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
        "uri", "uri-reference", "iri", "iri-reference", "uri-template", "json-pointer", "relative-json-pointer",
        "uuid", "regex",
    ]

    /// Calls `body` with the UTF-8 bytes of `value` in contiguous memory (a native string's own storage, without a
    /// copy).
    static func withBytes<Result>(_ value: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var value = value
        return value.withUTF8(body)
    }

    /// Whether `byte` is an ASCII decimal digit (`0`–`9`).
    @inline(__always)
    static func isDigit(_ byte: UInt8) -> Bool {
        byte &- 0x30 < 10
    }

    /// Whether `byte` is an ASCII letter (`A`–`Z`, `a`–`z`).
    @inline(__always)
    static func isAlpha(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- 0x61 < 26
    }

    /// Whether `byte` is an ASCII hexadecimal digit (`0`–`9`, `A`–`F`, `a`–`f`).
    @inline(__always)
    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20) &- 0x61 < 6
    }
}
