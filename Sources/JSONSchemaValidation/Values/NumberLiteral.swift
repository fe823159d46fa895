/// Reading an instance's number literal as a `Double`, quickly for the common case.
enum NumberLiteral {
    /// The `Double` of a JSON number literal: an integer of up to 15 digits directly (exact, as every such integer
    /// is a `Double`), anything else by `Double(_:)`.
    @inline(__always)
    static func double(_ literal: String) -> Double? {
        if let value = smallInteger(literal) { return Double(value) }
        return Double(literal)
    }

    /// The value of `-?[0-9]{1,15}`; `nil` for any other text.
    @inline(__always)
    static func smallInteger(_ literal: String) -> Int? {
        let count = literal.utf8.count
        guard count > 0, count <= 16 else { return nil }
        let parsed = literal.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            var index = 0
            let negative = bytes[0] == UInt8(ascii: "-")
            if negative { index = 1 }
            guard index < bytes.count, bytes.count - index <= 15 else { return nil }
            var value = 0
            while index < bytes.count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int(digit)
                index += 1
            }
            return negative ? -value : value
        }
        return parsed ?? nil
    }
}
