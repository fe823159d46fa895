import Foundation

/// Internationalized host names: IDNA2008 (RFC 5890, 5891, 5892, 5893) and Punycode (RFC 3492).
extension FormatChecker {
    /// Whether `value` is an internationalized host name: labels separated by `.` or one of the dots IDNA treats
    /// alike (U+3002 IDEOGRAPHIC FULL STOP, U+FF0E FULLWIDTH FULL STOP, U+FF61 HALFWIDTH IDEOGRAPHIC FULL STOP), with
    /// no empty label (so no leading or trailing dot).
    ///
    /// - A label of ASCII letters, digits and hyphens is checked as ``isValidHostname(_:)`` checks it (JSON Schema
    ///   accepts any RFC 1123 host name as an `idn-hostname`); one that starts with `xn--` must be an A-label.
    /// - Any other label must be a U-label (RFC 5891 section 5.4): in Unicode Normalization Form C; no hyphen in
    ///   both its third and fourth positions, nor at its start or end; not starting with a combining mark; every
    ///   code point PVALID by RFC 5892's derivation, or CONTEXTJ/CONTEXTO and allowed where it stands by the rules
    ///   of RFC 5892 Appendix A. Upper-case letters are DISALLOWED there (IDNA2008 leaves case mapping to the
    ///   application, as in UTS #46), so `bücher` is valid and `Bücher` is not.
    /// - When any label contains a right-to-left character (Bidi class R, AL or AN), every label must satisfy the
    ///   Bidi rule of RFC 5893 section 2.
    /// - Each label's A-label form is at most 63 octets, and the whole name in A-label form at most 253.
    ///
    /// - Parameter requiringNFC: Whether a U-label must already be in Normalization Form C (true, as RFC 5890
    ///   defines U-labels); false for a name whose caller has normalized it or will have it normalized on use, as an
    ///   internationalized e-mail address's domain is. A-labels must always decode to NFC.
    static func isValidIDNHostname(_ value: String, requiringNFC: Bool = true) -> Bool {
        // The whole name is in NFC exactly when each label is: the dots are starters that compose with nothing.
        guard !requiringNFC || IDNA.isNFC(value) else { return false }
        var bidi = IDNA.DomainBidi()
        var totalLength = -1
        var label: [Unicode.Scalar] = []
        label.reserveCapacity(64)
        var isASCII = true
        /// Checks the label gathered so far and adds its A-label length to the total.
        func finishLabel() -> Bool {
            guard !label.isEmpty else { return false }
            let length: Int
            if isASCII {
                guard label.count <= 63 else { return false }
                let bytes = label.map { UInt8(truncatingIfNeeded: $0.value) }
                let valid = bytes.withUnsafeBufferPointer { buffer -> Bool in
                    let end = buffer.count
                    if IDNA.hasACEPrefix(buffer, from: 0, to: end) {
                        guard let verdict = IDNA.checkALabel(buffer, from: 0, to: end) else { return false }
                        bidi.add(verdict)
                        return true
                    }
                    guard buffer[0] != UInt8(ascii: "-"), buffer[end - 1] != UInt8(ascii: "-"),
                        buffer.allSatisfy({ isAlpha($0) || isDigit($0) || $0 == UInt8(ascii: "-") })
                    else { return false }
                    bidi.addLDHLabel(startsWithLetter: isAlpha(buffer[0]))
                    return true
                }
                guard valid else { return false }
                length = label.count
            } else {
                guard let verdict = IDNA.checkULabel(label, requiringNFC: false),
                    let encoded = IDNA.punycodeEncode(label)
                else {
                    return false
                }
                length = 4 + encoded.count
                guard length <= 63 else { return false }
                bidi.add(verdict)
            }
            totalLength += length + 1
            label.removeAll(keepingCapacity: true)
            isASCII = true
            return totalLength <= 253
        }
        for scalar in value.unicodeScalars {
            switch scalar.value {
            case 0x2E, 0x3002, 0xFF0E, 0xFF61:
                guard finishLabel() else { return false }
            default:
                // No label of more than 63 code points has an A-label of 63 octets or fewer.
                guard label.count < 63 else { return false }
                if scalar.value >= 0x80 { isASCII = false }
                label.append(scalar)
            }
        }
        return finishLabel() && bidi.isValid
    }

    /// IDNA2008: the validity of A-labels and U-labels, the derived property of code points, and Punycode.
    enum IDNA {
        /// The IDNA2008 derived property of a code point (RFC 5892 section 2).
        enum DerivedProperty: Sendable {
            /// Protocol-valid: allowed anywhere in a U-label.
            case pvalid
            /// A join control (ZERO WIDTH JOINER, ZERO WIDTH NON-JOINER), allowed where Appendix A.1 or A.2 says.
            case contextJ
            /// Allowed where the rule of Appendix A for that code point says.
            case contextO
            /// Never allowed.
            case disallowed
            /// Not assigned in the Unicode version of the standard library; never allowed.
            case unassigned
        }

        /// What a valid label contributes to the Bidi rule of its domain name (RFC 5893).
        struct LabelVerdict: Sendable {
            /// Whether the label contains a character of Bidi class R, AL or AN (an "RTL label", which makes its
            /// domain name a "Bidi domain name").
            var isRightToLeft: Bool
            /// Whether the label satisfies the six conditions of the Bidi rule (RFC 5893 section 2).
            var satisfiesBidiRule: Bool
        }

        /// The Bidi rule over a whole domain name: when one label is right-to-left, all must satisfy the rule.
        struct DomainBidi: Sendable {
            /// Whether a label seen so far is right-to-left.
            private var hasRightToLeftLabel = false
            /// Whether every label seen so far satisfies the Bidi rule.
            private var allSatisfyRule = true

            /// A name with no labels yet.
            init() {}

            /// Adds a checked A-label or U-label.
            mutating func add(_ verdict: LabelVerdict) {
                hasRightToLeftLabel = hasRightToLeftLabel || verdict.isRightToLeft
                allSatisfyRule = allSatisfyRule && verdict.satisfiesBidiRule
            }

            /// Adds a label of ASCII letters, digits and hyphens that is not an A-label: it satisfies the Bidi rule
            /// exactly when it starts with a letter (class L), as its digits are EN and its hyphens ES.
            mutating func addLDHLabel(startsWithLetter: Bool) {
                allSatisfyRule = allSatisfyRule && startsWithLetter
            }

            /// Whether the domain name satisfies the Bidi rule as a whole.
            var isValid: Bool { !hasRightToLeftLabel || allSatisfyRule }
        }

        /// Whether `bytes[start..<end]` starts with the ACE prefix `xn--`, in any case.
        static func hasACEPrefix(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
            end - start >= 4 && bytes[start] | 0x20 == UInt8(ascii: "x") && bytes[start + 1] | 0x20 == UInt8(ascii: "n")
                && bytes[start + 2] == UInt8(ascii: "-") && bytes[start + 3] == UInt8(ascii: "-")
        }

        /// Checks `bytes[start..<end]`, an ASCII label with the ACE prefix, as an A-label (RFC 5891 section 5.4):
        /// its Punycode (compared without regard to case) must decode to a label with a non-ASCII character that is
        /// a valid U-label and that encodes back to the same Punycode. The caller checks the length (at most 63).
        ///
        /// - Returns: what the label contributes to the Bidi rule, or `nil` when it is not an A-label.
        static func checkALabel(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int)
            -> LabelVerdict?
        {
            let punycode = bytes[(start + 4)..<end].map { isAlpha($0) ? $0 | 0x20 : $0 }
            guard !punycode.isEmpty, let decoded = punycodeDecode(punycode),
                decoded.contains(where: { $0.value >= 0x80 }), let verdict = checkULabel(decoded),
                punycodeEncode(decoded) == punycode
            else { return nil }
            return verdict
        }

        /// Checks `label` as a U-label (RFC 5891 sections 4.2.3 and 5.4, RFC 5892 Appendix A).
        ///
        /// - Parameter requiringNFC: Whether the label must be in Normalization Form C (false only for a label that
        ///   its caller has normalized, or that will be normalized on use).
        /// - Returns: what the label contributes to the Bidi rule, or `nil` when it is not a valid U-label.
        static func checkULabel(_ label: [Unicode.Scalar], requiringNFC: Bool = true) -> LabelVerdict? {
            guard let first = label.first, let last = label.last, !requiringNFC || isNFC(label) else { return nil }
            if label.count >= 4 && label[2] == "-" && label[3] == "-" { return nil }
            if first == "-" || last == "-" { return nil }
            // One pass reads each code point's properties once: its derived property, and its Bidi class.
            var bidi = BidiScan()
            var hasContextualRule = false
            for position in label.indices {
                let scalar = label[position]
                let property: DerivedProperty
                if scalar.value < 0x80 {
                    property = derivedProperty(scalar)
                    bidi.add(bidiClass(of: scalar))
                } else {
                    let category = scalar.properties.generalCategory
                    if position == 0 {
                        switch category {  // No combining mark first (RFC 5891 section 4.2.3.2).
                        case .nonspacingMark, .spacingMark, .enclosingMark: return nil
                        default: break
                        }
                    }
                    property = derivedProperty(scalar, category: category)
                    bidi.add(bidiClass(of: scalar, category: category))
                }
                switch property {
                case .pvalid: continue
                case .contextJ, .contextO: hasContextualRule = true
                case .disallowed, .unassigned: return nil
                }
            }
            if hasContextualRule {
                for position in label.indices {
                    switch derivedProperty(label[position]) {
                    case .contextJ: guard contextJAllows(label, at: position) else { return nil }
                    case .contextO: guard contextOAllows(label, at: position) else { return nil }
                    default: continue
                    }
                }
            }
            return bidi.verdict
        }

        /// The IDNA2008 derived property of `scalar`, computed by the rules of RFC 5892 section 3 from the standard
        /// library's Unicode data (so it follows the Unicode version of the Swift runtime).
        ///
        /// The rules are applied in the RFC's order, Exceptions (F), BackwardCompatible (G, empty), Unassigned (J),
        /// LDH (K), JoinControl (H), then DISALLOWED for Unstable (B), IgnorableProperties (C), IgnorableBlocks (D)
        /// and OldHangulJamo (E), then PVALID for LetterDigits (A) and DISALLOWED for the rest, with two shortcuts
        /// that give the same results with fewer property lookups: a code point outside LetterDigits is DISALLOWED
        /// whichever of B–E holds, and for one inside it B and C come down to `Changes_When_NFKC_Casefolded`
        /// (which is B's `toNFKC(toCaseFold(toNFKC(cp))) != cp`, and holds for every default-ignorable code point
        /// too, while no white space or noncharacter is a letter, mark or digit).
        static func derivedProperty(_ scalar: Unicode.Scalar) -> DerivedProperty {
            let value = scalar.value
            if value < 0x80 {
                let isLDH = value == 0x2D || (0x30...0x39).contains(value) || (0x61...0x7A).contains(value)
                return isLDH ? .pvalid : .disallowed
            }
            return derivedProperty(scalar, category: scalar.properties.generalCategory)
        }

        /// The derived property of `scalar`, a code point of U+0080 or above whose General_Category the caller has
        /// read already (`category`).
        private static func derivedProperty(_ scalar: Unicode.Scalar, category: Unicode.GeneralCategory)
            -> DerivedProperty
        {
            let value = scalar.value
            switch value {
            case 0x00DF, 0x03C2, 0x06FD, 0x06FE, 0x0F0B, 0x3007:
                return .pvalid
            case 0x00B7, 0x0375, 0x05F3, 0x05F4, 0x30FB, 0x0660...0x0669, 0x06F0...0x06F9:
                return .contextO
            case 0x0640, 0x07FA, 0x302E, 0x302F, 0x3031...0x3035, 0x303B:
                return .disallowed
            default:
                break
            }
            switch category {
            case .unassigned:
                return scalar.properties.isNoncharacterCodePoint ? .disallowed : .unassigned
            case .lowercaseLetter, .uppercaseLetter, .otherLetter, .modifierLetter, .decimalNumber, .nonspacingMark,
                .spacingMark:
                break
            default:
                // JoinControl is ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER (format characters).
                return value == 0x200C || value == 0x200D ? .contextJ : .disallowed
            }
            switch value {
            case 0x20D0...0x20FF, 0x1D100...0x1D24F:  // Combining Diacritical Marks for Symbols, musical notation
                return .disallowed
            case 0x1100...0x11FF, 0xA960...0xA97F, 0xD7B0...0xD7FF:  // Hangul_Syllable_Type L, V and T
                return .disallowed
            default:
                return scalar.properties.changesWhenNFKCCaseFolded ? .disallowed : .pvalid
            }
        }

        // MARK: - Label rules

        /// Whether `label` is in Unicode Normalization Form C. Labels of code points below U+0300 always are.
        private static func isNFC(_ label: [Unicode.Scalar]) -> Bool {
            if label.allSatisfy({ $0.value < 0x300 }) { return true }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(label.count * 4)
            for scalar in label { UTF8.encode(scalar) { bytes.append($0) } }
            return isNFC(String(decoding: bytes, as: UTF8.self))
        }

        /// Whether `text` is in Unicode Normalization Form C. Text of code points below U+0300 always is.
        ///
        /// The standard library's check (Unicode data of the Swift runtime, the same as the derived property's) is
        /// used where it exists; elsewhere Foundation's normalization, whose Unicode data may be older.
        static func isNFC(_ text: String) -> Bool {
            // UTF-8 bytes below 0xCC are ASCII, continuation bytes, or lead bytes of code points below U+0300.
            if text.utf8.allSatisfy({ $0 < 0xCC }) { return true }
            if #available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *) {
                var span = text.utf8Span
                // The quick check answers "yes" for most text without normalizing; "maybe" needs the full check.
                return span.checkForNFC(quickCheck: true) || span.checkForNFC(quickCheck: false)
            }
            return text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(text.unicodeScalars)
        }

        /// Whether the join control at `position` is allowed (RFC 5892 Appendix A.1 and A.2): after a virama, or,
        /// for ZERO WIDTH NON-JOINER, between a left- or dual-joining and a right- or dual-joining character with only
        /// transparent ones between (the regular expression of A.1).
        private static func contextJAllows(_ label: [Unicode.Scalar], at position: Int) -> Bool {
            if position > 0 && label[position - 1].properties.canonicalCombiningClass == .virama { return true }
            guard label[position].value == 0x200C else { return false }
            var before = position - 1
            while before >= 0 && joiningType(of: label[before]) == .transparent { before -= 1 }
            guard before >= 0 else { return false }
            switch joiningType(of: label[before]) {
            case .leftJoining, .dualJoining: break
            default: return false
            }
            var after = position + 1
            while after < label.count && joiningType(of: label[after]) == .transparent { after += 1 }
            guard after < label.count else { return false }
            switch joiningType(of: label[after]) {
            case .rightJoining, .dualJoining: return true
            default: return false
            }
        }

        /// Whether the CONTEXTO code point at `position` is allowed (RFC 5892 Appendix A.3–A.9).
        private static func contextOAllows(_ label: [Unicode.Scalar], at position: Int) -> Bool {
            switch label[position].value {
            case 0x00B7:  // MIDDLE DOT: between two 'l's (Catalan).
                return position > 0 && position + 1 < label.count && label[position - 1] == "l"
                    && label[position + 1] == "l"
            case 0x0375:  // GREEK LOWER NUMERAL SIGN (KERAIA): followed by a Greek character.
                return position + 1 < label.count && script(of: label[position + 1]) == .greek
            case 0x05F3, 0x05F4:  // HEBREW PUNCTUATION GERESH and GERSHAYIM: after a Hebrew character.
                return position > 0 && script(of: label[position - 1]) == .hebrew
            case 0x30FB:  // KATAKANA MIDDLE DOT: the label has a Hiragana, Katakana or Han character.
                return label.contains { scalar in
                    switch script(of: scalar) {
                    case .hiragana, .katakana, .han: return true
                    default: return false
                    }
                }
            case 0x0660...0x0669:  // ARABIC-INDIC DIGITS: not with EXTENDED ARABIC-INDIC DIGITS.
                return !label.contains { (0x06F0...0x06F9).contains($0.value) }
            case 0x06F0...0x06F9:  // EXTENDED ARABIC-INDIC DIGITS: not with ARABIC-INDIC DIGITS.
                return !label.contains { (0x0660...0x0669).contains($0.value) }
            default:
                return false
            }
        }

        /// The Bidi rule of RFC 5893 section 2 over a label, read one Bidi class at a time.
        private struct BidiScan {
            /// Whether no class has been read yet.
            private var isEmpty = true
            /// Whether the first character is R or AL (the label reads right to left under rules 2 to 4).
            private var rightToLeftDirection = false
            /// Whether the first character is L, R or AL (rule 1).
            private var firstIsStrong = false
            /// Whether every class is allowed in the label's direction (rules 2 and 5).
            private var allowedEverywhere = true
            /// The class of the last character that is not NSM (rules 3 and 6).
            private var lastNotMark: BidiClass?
            /// Whether a character is R, AL or AN.
            private var isRightToLeft = false
            /// Whether a character is EN (rule 4).
            private var hasEuropeanNumber = false
            /// Whether a character is AN (rule 4).
            private var hasArabicNumber = false

            /// Reads the class of the next character.
            mutating func add(_ bidi: BidiClass) {
                if isEmpty {
                    isEmpty = false
                    rightToLeftDirection = bidi == .rightToLeft || bidi == .arabicLetter
                    firstIsStrong = rightToLeftDirection || bidi == .leftToRight
                }
                switch bidi {
                case .rightToLeft, .arabicLetter: isRightToLeft = true
                case .arabicNumber:
                    isRightToLeft = true
                    hasArabicNumber = true
                case .europeanNumber: hasEuropeanNumber = true
                default: break
                }
                if bidi != .nonspacingMark { lastNotMark = bidi }
                switch bidi {
                case .europeanNumber, .europeanSeparator, .commonSeparator, .europeanTerminator, .otherNeutral,
                    .boundaryNeutral, .nonspacingMark:
                    break  // Allowed in both directions (rules 2 and 5).
                case .rightToLeft, .arabicLetter, .arabicNumber:
                    if !rightToLeftDirection { allowedEverywhere = false }  // Rule 5.
                case .leftToRight:
                    if rightToLeftDirection { allowedEverywhere = false }  // Rule 2.
                case .other:
                    allowedEverywhere = false
                }
            }

            /// What the label read contributes to the Bidi rule of its domain name.
            var verdict: LabelVerdict {
                var satisfies = firstIsStrong && allowedEverywhere
                if rightToLeftDirection {
                    switch lastNotMark {
                    case .rightToLeft, .arabicLetter, .europeanNumber, .arabicNumber: break  // Rule 3.
                    default: satisfies = false
                    }
                    if hasEuropeanNumber && hasArabicNumber { satisfies = false }  // Rule 4.
                } else {
                    switch lastNotMark {
                    case .leftToRight, .europeanNumber: break  // Rule 6.
                    default: satisfies = false
                    }
                }
                return LabelVerdict(isRightToLeft: isRightToLeft, satisfiesBidiRule: satisfies)
            }
        }

        // MARK: - Punycode (RFC 3492)

        /// Punycode's base.
        private static let base = 36
        /// Punycode's least threshold.
        private static let tMin = 1
        /// Punycode's greatest threshold.
        private static let tMax = 26
        /// Punycode's skew of the bias adaptation.
        private static let skew = 38
        /// Punycode's damping of the first bias adaptation.
        private static let damp = 700
        /// Punycode's first bias.
        private static let initialBias = 72
        /// Punycode's first code point to insert.
        private static let initialN = 0x80
        /// A bound above any value a valid label needs; larger intermediate values fail instead of overflowing.
        private static let maximumValue = Int(Int32.max)

        /// The bias adaptation function (RFC 3492 section 6.1).
        private static func adapt(delta: Int, pointCount: Int, isFirst: Bool) -> Int {
            var delta = isFirst ? delta / damp : delta / 2
            delta += delta / pointCount
            var k = 0
            while delta > ((base - tMin) * tMax) / 2 {
                delta /= base - tMin
                k += base
            }
            return k + ((base - tMin + 1) * delta) / (delta + skew)
        }

        /// The threshold for the digit at `k` with the current `bias`.
        private static func threshold(_ k: Int, bias: Int) -> Int {
            k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
        }

        /// Decodes Punycode (RFC 3492 section 6.2): the code points before the last hyphen are copied, the digits
        /// after it are the insertions. Digits are read in lower case (the caller lower-cases the label).
        ///
        /// - Returns: the decoded code points, or `nil` when the text is not valid Punycode.
        static func punycodeDecode(_ input: [UInt8]) -> [Unicode.Scalar]? {
            var output: [Unicode.Scalar] = []
            var digitsStart = 0
            if let delimiter = input.lastIndex(of: UInt8(ascii: "-")) {
                output = input[..<delimiter].map { Unicode.Scalar($0) }
                digitsStart = delimiter + 1
            }
            var n = initialN
            var i = 0
            var bias = initialBias
            var position = digitsStart
            while position < input.count {
                let oldI = i
                var weight = 1
                var k = base
                while true {
                    guard position < input.count else { return nil }
                    let byte = input[position]
                    position += 1
                    let digit: Int
                    if isDigit(byte) {
                        digit = Int(byte) - 0x30 + 26
                    } else if byte &- UInt8(ascii: "a") < 26 {
                        digit = Int(byte) - Int(UInt8(ascii: "a"))
                    } else {
                        return nil
                    }
                    guard digit <= (maximumValue - i) / weight else { return nil }
                    i += digit * weight
                    let t = threshold(k, bias: bias)
                    if digit < t { break }
                    guard weight <= maximumValue / (base - t) else { return nil }
                    weight *= base - t
                    k += base
                }
                let pointCount = output.count + 1
                bias = adapt(delta: i - oldI, pointCount: pointCount, isFirst: oldI == 0)
                guard i / pointCount <= maximumValue - n else { return nil }
                n += i / pointCount
                i %= pointCount
                guard n <= 0x10FFFF, let scalar = Unicode.Scalar(UInt32(n)) else { return nil }
                output.insert(scalar, at: i)
                i += 1
            }
            return output
        }

        /// Encodes `input` as Punycode (RFC 3492 section 6.3), in lower case, without the ACE prefix.
        ///
        /// - Returns: the Punycode, or `nil` when a value would overflow (never for a label of a valid length).
        static func punycodeEncode(_ input: [Unicode.Scalar]) -> [UInt8]? {
            var output: [UInt8] = input.compactMap { $0.value < 0x80 ? UInt8($0.value) : nil }
            let basicCount = output.count
            var handled = basicCount
            if basicCount > 0 { output.append(UInt8(ascii: "-")) }
            var n = initialN
            var delta = 0
            var bias = initialBias
            /// The Punycode digit for `value` (0–35).
            func digit(_ value: Int) -> UInt8 {
                value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
            }
            while handled < input.count {
                var next = Int.max
                for scalar in input where Int(scalar.value) >= n && Int(scalar.value) < next {
                    next = Int(scalar.value)
                }
                guard (next - n) <= (maximumValue - delta) / (handled + 1) else { return nil }
                delta += (next - n) * (handled + 1)
                n = next
                for scalar in input {
                    let value = Int(scalar.value)
                    if value < n {
                        delta += 1
                        guard delta <= maximumValue else { return nil }
                    }
                    if value == n {
                        var q = delta
                        var k = base
                        while true {
                            let t = threshold(k, bias: bias)
                            if q < t { break }
                            output.append(digit(t + (q - t) % (base - t)))
                            q = (q - t) / (base - t)
                            k += base
                        }
                        output.append(digit(q))
                        bias = adapt(delta: delta, pointCount: handled + 1, isFirst: handled == basicCount)
                        delta = 0
                        handled += 1
                    }
                }
                delta += 1
                n += 1
            }
            return output
        }
    }
}
