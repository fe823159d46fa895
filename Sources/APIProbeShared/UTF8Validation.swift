/// UTF-8 validation for the JSON readers (RFC 8259 requires UTF-8; RFC 3629 says what is valid), one place for
/// HTTPFixtures' and JSONShape's readers.
package enum UTF8Validation {
    /// The length of the valid UTF-8 sequence that starts at `index` (a byte of 0x80 or more), or `nil` when the
    /// bytes there are not one: a stray continuation byte, a truncated sequence, an overlong form, a surrogate or
    /// a code point above U+10FFFF.
    @inlinable
    package static func sequenceLength(in bytes: some RandomAccessCollection<UInt8>, at index: Int) -> Int? {
        let count = bytes.count
        let base = bytes.startIndex
        func byte(_ offset: Int) -> UInt8 { bytes[bytes.index(base, offsetBy: index + offset)] }
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < count && range.contains(byte(offset))
        }
        switch byte(0) {
        case 0xC2...0xDF: return continuation(1) ? 2 : nil
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : nil
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : nil
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : nil
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : nil
        default: return nil
        }
    }
}
