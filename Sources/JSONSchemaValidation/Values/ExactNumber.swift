/// A JSON number literal read exactly: a sign, its significant decimal digits and a power of ten.
///
/// JSON Schema compares numbers as mathematical values, not as `Double`s: `1.0` is an integer, a bound of
/// `972783798187987123879878123.18878137` is not the same as `…123.188781371`, and `1e308` is a multiple of `0.5`.
/// `Double` is the fast path; this type decides wherever `Double` cannot tell two values apart.
struct ExactNumber: Sendable, Hashable {
    /// Whether the value is below zero (never true for zero).
    var isNegative: Bool
    /// The significant digits, ASCII, without leading or trailing zeros; empty for zero.
    var digits: [UInt8]
    /// The value is `digits × 10^exponent`.
    var exponent: Int

    /// Reads a JSON number literal (`-12.50e+3`); `nil` when the text is not one or its exponent does not fit.
    init?(_ literal: String) {
        var bytes = Array(literal.utf8)[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        var digits: [UInt8] = []
        var exponent = 0
        var sawDigit = false
        var inFraction = false
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                sawDigit = true
                if !(digits.isEmpty && byte == UInt8(ascii: "0")) { digits.append(byte) }
                if inFraction { exponent -= 1 }
            } else if byte == UInt8(ascii: "."), !inFraction {
                inFraction = true
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return nil }
        if index < bytes.endIndex {
            guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else { return nil }
            guard let power = Int(String(decoding: bytes[(index + 1)...], as: UTF8.self).trimmingPlus()),
                abs(power) < 1 << 40
            else { return nil }
            exponent += power
        }
        while digits.last == UInt8(ascii: "0") {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
        self.isNegative = negative
        self.digits = digits
        self.exponent = exponent
    }

    /// Whether the value is zero.
    var isZero: Bool { digits.isEmpty }

    /// Whether the value has no fractional part (`1.0`, `1e3`, `12345678901234567890`).
    var isInteger: Bool { exponent >= 0 }

    /// The position of the leading digit: `10^(magnitude - 1) ≤ |value| < 10^magnitude`.
    private var magnitude: Int { digits.count + exponent }

    /// The order of two values.
    static func compare(_ a: ExactNumber, _ b: ExactNumber) -> Int {
        if a.isNegative != b.isNegative { return a.isNegative ? -1 : 1 }
        let sign = a.isNegative ? -1 : 1
        if a.isZero || b.isZero {
            if a.isZero && b.isZero { return 0 }
            return a.isZero ? -sign : sign
        }
        if a.magnitude != b.magnitude { return a.magnitude < b.magnitude ? -sign : sign }
        for index in 0..<max(a.digits.count, b.digits.count) {
            let x = index < a.digits.count ? a.digits[index] : UInt8(ascii: "0")
            let y = index < b.digits.count ? b.digits[index] : UInt8(ascii: "0")
            if x != y { return x < y ? -sign : sign }
        }
        return 0
    }

    /// Whether `self / divisor` is an integer, exactly; `nil` when the digits are too many to decide so (more than
    /// 18 significant digits in either).
    func isMultiple(of divisor: ExactNumber) -> Bool? {
        if isZero { return true }
        guard !divisor.isZero, digits.count <= 18, divisor.digits.count <= 18,
            let value = UInt64(String(decoding: digits, as: UTF8.self)),
            let step = UInt64(String(decoding: divisor.digits, as: UTF8.self))
        else { return nil }
        // value × 10^e / (step × 10^f) is an integer ⇔ step divides value × 10^(e − f) (for e ≥ f), or
        // step × 10^(f − e) divides value (for e < f).
        let shift = exponent - divisor.exponent
        if shift >= 0 {
            // (value mod step) × (10^shift mod step) mod step, by repeated squaring: exact for any shift.
            var result = value % step
            var base: UInt64 = 10 % step
            var power = shift
            while power > 0 {
                if power & 1 == 1 { result = Self.multiplyModulo(result, base, step) }
                base = Self.multiplyModulo(base, base, step)
                power >>= 1
            }
            return result == 0
        }
        var scaled = step
        for _ in 0..<(-shift) {
            let (product, overflow) = scaled.multipliedReportingOverflow(by: 10)
            if overflow { return false }  // the divisor's magnitude is beyond the value's: not a whole multiple.
            scaled = product
        }
        return value % scaled == 0
    }

    private static func multiplyModulo(_ a: UInt64, _ b: UInt64, _ modulus: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return modulus.dividingFullWidth((product.high, product.low)).remainder
    }
}

extension String {
    /// `+3` → `3` (Swift's `Int.init` takes no plus sign).
    fileprivate func trimmingPlus() -> String { hasPrefix("+") ? String(dropFirst()) : self }
}
