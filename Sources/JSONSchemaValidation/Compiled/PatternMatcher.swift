import APIProbeShared

/// A compiled `pattern` (or `patternProperties` name): the ECMA-262 regular expression, and, when the pattern is
/// simple enough, a matcher of its own that answers without the ICU engine.
///
/// Most patterns in API descriptions are a sequence of characters, classes and quantifiers between optional anchors
/// (`^[A-Z]{3}-[0-9]{4}$`, `^cus_[A-Za-z0-9]+$`, `^x-`). Those are regular languages over ASCII sets, matched here
/// by a bit-parallel automaton over the text's code points: linear, no backtracking, no allocation, so no time
/// limit applies. Everything else (groups, alternation, lookarounds, backreferences, Unicode escapes, non-ASCII
/// characters, `\s`, `\b`, very large counts) goes to ``ECMARegex``.
///
/// A class, so that a keyword holding one is copied with one reference count.
final class PatternMatcher: Sendable {
    let regex: ECMARegex
    let simple: SimplePattern?

    init(_ regex: ECMARegex, storage: KeywordStorage) {
        self.regex = regex
        simple = SimplePattern(regex.pattern, storage: storage)
    }

    var pattern: String { regex.pattern }
}

/// A pattern of characters, classes and quantifiers between optional `^` and `$`, read by ECMA-262's rules with
/// the `u` flag (code points; `\d` and `\w` ASCII; `.` every code point but the four line terminators; `^` and `$`
/// only at the text's ends), as a Thompson automaton of at most 63 states kept in one word. Plain values (its tables
/// are in the storage), so that using one counts no reference.
struct SimplePattern: @unchecked Sendable {
    /// One position of the pattern: the characters it takes.
    struct Slot: Sendable {
        /// ASCII 0–63 and 64–127.
        var low: UInt64
        var high: UInt64
        var nonASCII: NonASCII
        /// Whether the slot may be skipped (`?`, `*`, the optional copies of `{n,m}`).
        var optional: Bool
        /// Whether the slot may take more characters after one (`*`, the last copy of `+` and `{n,}`).
        var repeats: Bool

        @inline(__always)
        func takes(ascii byte: UInt8) -> Bool {
            byte < 64 ? low & (1 << UInt64(byte)) != 0 : high & (1 << UInt64(byte &- 64)) != 0
        }

        @inline(__always)
        func takes(nonASCIILineTerminator: Bool) -> Bool {
            switch nonASCII {
            case .none: return false
            case .all: return true
            case .allButLineTerminators: return !nonASCIILineTerminator
            }
        }
    }

    /// Which code points above U+007F a slot takes.
    enum NonASCII: Sendable {
        case none
        case all
        /// `.`: all but U+2028 and U+2029.
        case allButLineTerminators
    }

    /// For each character class (ASCII 0–127; 128: any other code point; 129: U+2028 and U+2029), the slots that
    /// take it, as bits.
    let accepts: UnsafeBufferPointer<UInt64>
    /// For each slot, the states after it takes a character: itself again when it repeats, and what follows
    /// without taking one.
    let after: UnsafeBufferPointer<UInt64>
    /// The states before any character, and the accepting state.
    let start: UInt64
    let accept: UInt64
    let anchoredStart: Bool
    let anchoredEnd: Bool
    /// For a pattern anchored at its start whose slots are all mandatory and ASCII (`^[A-Z]{3}-[0-9]{4}$`,
    /// `^/v1/charges`): their count, the length of every match; -1 for the others.
    let fixedLength: Int

    /// Parses `pattern`; `nil` when it is anything but the simple kind. The pattern has passed ``ECMARegex``'s
    /// parser already, so whatever is not understood here is handed to the engine, never rejected.
    init?(_ pattern: String, storage: KeywordStorage) {
        var parser = SimplePatternParser(Array(pattern.unicodeScalars))
        guard let parsed = parser.parse(), parsed.slots.count < 64 else { return nil }
        let slots = parsed.slots
        anchoredStart = parsed.anchoredStart
        anchoredEnd = parsed.anchoredEnd
        // The states reachable from each slot without taking a character: itself, and the ones after it that may
        // be skipped; from the end, the accepting state alone.
        var closures = [UInt64](repeating: 0, count: slots.count + 1)
        closures[slots.count] = 1 << UInt64(slots.count)
        for index in slots.indices.reversed() {
            closures[index] = 1 << UInt64(index) | (slots[index].optional ? closures[index + 1] : 0)
        }
        start = closures[0]
        accept = closures[slots.count]
        after = storage.buffer(slots.indices.map { slots[$0].repeats ? closures[$0] : closures[$0 + 1] })
        var accepts = [UInt64](repeating: 0, count: 130)
        for (index, slot) in slots.enumerated() {
            for byte in 0..<128 where slot.takes(ascii: UInt8(byte)) { accepts[byte] |= 1 << UInt64(index) }
            if slot.takes(nonASCIILineTerminator: false) { accepts[128] |= 1 << UInt64(index) }
            if slot.takes(nonASCIILineTerminator: true) { accepts[129] |= 1 << UInt64(index) }
        }
        self.accepts = storage.buffer(accepts)
        let fixed = slots.allSatisfy { !$0.optional && !$0.repeats && $0.nonASCII == .none }
        fixedLength = parsed.anchoredStart && fixed ? slots.count : -1
    }

    /// Whether the pattern matches somewhere in `text` (at its start with `^`, at its end with `$`).
    func matches(_ text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable({ run($0) }) { return answer }
        return Array(text.utf8).withUnsafeBufferPointer { run($0) }
    }

    private func run(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if fixedLength >= 0 {
            // Slot i takes byte i, and nothing else is asked (but the end, with `$`).
            guard anchoredEnd ? bytes.count == fixedLength : bytes.count >= fixedLength else { return false }
            for index in 0..<fixedLength {
                let byte = bytes[index]
                guard byte < 0x80, accepts[Int(byte)] & (1 << UInt64(index)) != 0 else { return false }
            }
            return true
        }
        var current = start
        if !anchoredEnd && current & accept != 0 { return true }
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            var characterClass = Int(byte)
            if byte < 0x80 {
                index += 1
            } else {
                // A code point of 2–4 bytes (the text is valid UTF-8); U+2028 and U+2029 are E2 80 A8/A9.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                let lineTerminator =
                    length == 3 && byte == 0xE2 && index + 2 < count && bytes[index + 1] == 0x80
                    && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9)
                characterClass = lineTerminator ? 129 : 128
                index += length
            }
            var taken = current & accepts[characterClass]
            var next: UInt64 = 0
            while taken != 0 {
                next |= after[taken.trailingZeroBitCount]
                taken &= taken &- 1
            }
            if !anchoredStart { next |= start }
            current = next
            if !anchoredEnd && current & accept != 0 { return true }
            if current == 0 { return false }
        }
        return current & accept != 0
    }
}

/// The parser of ``SimplePattern``: ECMA-262's pattern grammar (with `u`), for the subset that has no groups.
private struct SimplePatternParser {
    /// A set of code points: ASCII as bits, the rest as a whole.
    struct CharacterSet {
        var low: UInt64 = 0
        var high: UInt64 = 0
        var nonASCII: SimplePattern.NonASCII = .none

        mutating func insert(_ value: UInt32) {
            if value < 64 { low |= 1 << UInt64(value) } else { high |= 1 << UInt64(value - 64) }
        }

        mutating func insert(_ range: ClosedRange<UInt32>) {
            for value in range { insert(value) }
        }

        /// Adds `other`; `false` for a union this type cannot hold (`.` in a class never occurs).
        mutating func formUnion(_ other: CharacterSet) -> Bool {
            low |= other.low
            high |= other.high
            switch (nonASCII, other.nonASCII) {
            case (_, .none), (.all, .all): return true
            case (.none, let more):
                nonASCII = more
                return true
            default: return false
            }
        }

        var inverted: CharacterSet? {
            switch nonASCII {
            case .none: return CharacterSet(low: ~low, high: ~high, nonASCII: .all)
            case .all: return CharacterSet(low: ~low, high: ~high, nonASCII: .none)
            case .allButLineTerminators: return nil
            }
        }

        static let digits: CharacterSet = {
            var set = CharacterSet()
            set.insert(0x30...0x39)
            return set
        }()

        static let word: CharacterSet = {
            var set = CharacterSet()
            set.insert(0x30...0x39)
            set.insert(0x41...0x5A)
            set.insert(0x61...0x7A)
            set.insert(0x5F)
            return set
        }()

        /// `.`: every code point but LF, CR, U+2028 and U+2029.
        static let dot: CharacterSet = {
            var set = CharacterSet(low: ~0, high: ~0, nonASCII: .allButLineTerminators)
            set.low &= ~(1 << 0x0A | 1 << 0x0D)
            return set
        }()
    }

    struct Parsed {
        var slots: [SimplePattern.Slot] = []
        var anchoredStart = false
        var anchoredEnd = false
    }

    let scalars: [Unicode.Scalar]
    var index = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var peek: UInt32? { index < scalars.count ? scalars[index].value : nil }

    mutating func parse() -> Parsed? {
        var parsed = Parsed()
        if peek == 0x5E {  // ^
            parsed.anchoredStart = true
            index += 1
        }
        while let value = peek {
            if value == 0x24 {  // $: only as the very last character
                guard index == scalars.count - 1 else { return nil }
                parsed.anchoredEnd = true
                index += 1
                break
            }
            guard let set = atom() else { return nil }
            guard let (minimum, maximum) = quantifier() else { return nil }
            let slot = SimplePattern.Slot(
                low: set.low, high: set.high, nonASCII: set.nonASCII, optional: false, repeats: false)
            for _ in 0..<minimum { parsed.slots.append(slot) }
            if let maximum {
                guard maximum - minimum < 64 else { return nil }
                for _ in minimum..<maximum {
                    var optional = slot
                    optional.optional = true
                    parsed.slots.append(optional)
                }
            } else {
                var star = slot
                star.optional = true
                star.repeats = true
                parsed.slots.append(star)
            }
            if parsed.slots.count >= 64 { return nil }
        }
        return parsed
    }

    /// One character, class or escape outside a class.
    mutating func atom() -> CharacterSet? {
        guard let value = peek else { return nil }
        index += 1
        switch value {
        case 0x2E: return .dot  // .
        case 0x5B: return characterClass()  // [
        case 0x5C: return escape(inClass: false)  // \
        case 0x5E, 0x24, 0x2A, 0x2B, 0x3F, 0x28, 0x29, 0x5D, 0x7B, 0x7D, 0x7C:
            return nil  // ^ $ * + ? ( ) ] { } |
        default:
            guard value < 0x80 else { return nil }
            var set = CharacterSet()
            set.insert(value)
            return set
        }
    }

    /// `\d \D \w \W`, control escapes and escaped syntax characters (and `-` in a class).
    mutating func escape(inClass: Bool) -> CharacterSet? {
        guard let value = peek else { return nil }
        index += 1
        var set = CharacterSet()
        switch value {
        case 0x64: return .digits  // d
        case 0x44: return CharacterSet.digits.inverted  // D
        case 0x77: return .word  // w
        case 0x57: return CharacterSet.word.inverted  // W
        case 0x74: set.insert(0x09)  // t
        case 0x6E: set.insert(0x0A)  // n
        case 0x76: set.insert(0x0B)  // v
        case 0x66: set.insert(0x0C)  // f
        case 0x72: set.insert(0x0D)  // r
        case 0x5E, 0x24, 0x5C, 0x2E, 0x2A, 0x2B, 0x3F, 0x28, 0x29, 0x5B, 0x5D, 0x7B, 0x7D, 0x7C, 0x2F:
            set.insert(value)  // ^ $ \ . * + ? ( ) [ ] { } | /
        case 0x2D where inClass:
            set.insert(value)  // -
        default:
            return nil
        }
        return set
    }

    /// A class after its `[`: ranges of single ASCII characters, `\d`-like escapes, negation.
    mutating func characterClass() -> CharacterSet? {
        var negated = false
        if peek == 0x5E {
            negated = true
            index += 1
        }
        var set = CharacterSet()
        while true {
            guard let value = peek else { return nil }
            if value == 0x5D {  // ]
                index += 1
                break
            }
            guard let (first, single) = classAtom() else { return nil }
            if peek == 0x2D, index + 1 < scalars.count, scalars[index + 1].value != 0x5D {
                index += 1
                guard let low = single, let (_, high) = classAtom(), let high, low <= high else { return nil }
                set.insert(low...high)
            } else {
                guard set.formUnion(first) else { return nil }
            }
        }
        return negated ? set.inverted : set
    }

    /// One atom of a class: its set, and its character when it is a single one (a range's end).
    mutating func classAtom() -> (CharacterSet, UInt32?)? {
        guard let value = peek else { return nil }
        index += 1
        if value == 0x5C {
            guard let escaped = peek else { return nil }
            guard let set = escape(inClass: true) else { return nil }
            let single: UInt32?
            switch escaped {
            case 0x64, 0x44, 0x77, 0x57: single = nil
            case 0x74: single = 0x09
            case 0x6E: single = 0x0A
            case 0x76: single = 0x0B
            case 0x66: single = 0x0C
            case 0x72: single = 0x0D
            default: single = escaped
            }
            return (set, single)
        }
        // `[` inside a class is a character with `u`, but not with `v`: left to the engine.
        guard value < 0x80, value != 0x5B else { return nil }
        var set = CharacterSet()
        set.insert(value)
        return (set, value)
    }

    /// The quantifier after an atom, as minimum and maximum (`nil`: unbounded); `(1, 1)` when there is none.
    mutating func quantifier() -> (Int, Int?)? {
        var result: (Int, Int?)
        switch peek {
        case 0x2A?: result = (0, nil)  // *
        case 0x2B?: result = (1, nil)  // +
        case 0x3F?: result = (0, 1)  // ?
        case 0x7B?:  // {n}, {n,}, {n,m}
            index += 1
            guard let minimum = number() else { return nil }
            var maximum: Int? = minimum
            if peek == 0x2C {
                index += 1
                maximum = peek == 0x7D ? nil : number()
                if maximum == nil && peek != 0x7D { return nil }
            }
            guard peek == 0x7D, minimum < 64, maximum.map({ $0 >= minimum }) ?? true else { return nil }
            result = (minimum, maximum)
        default:
            return (1, 1)
        }
        index += 1
        if peek == 0x3F { index += 1 }  // lazy: the same language
        return result
    }

    mutating func number() -> Int? {
        var value = 0
        var digits = 0
        while let digit = peek, digit >= 0x30, digit <= 0x39 {
            value = value * 10 + Int(digit - 0x30)
            digits += 1
            index += 1
            if value > 1_000 { return nil }
        }
        return digits > 0 ? value : nil
    }
}
