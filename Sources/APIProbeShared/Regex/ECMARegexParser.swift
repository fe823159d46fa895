// A recursive-descent parser for ECMA-262's Pattern grammar (ECMAScript 2025, section 22.2.1) with the `u` flag,
// named groups and the `(?ims-ims:…)` modifier groups. It checks every static-semantics rule the grammar carries
// (group numbers and names that backreferences name, duplicate group names, quantifier bounds, class ranges) and
// builds the syntax tree that `ECMARegexTranslator` turns into an ICU pattern.
//
// Annex B (the web-compatibility grammar) does not apply: it is for patterns without the `u` flag.

/// The flags a modifier group can turn on or off, and that the translation follows through the tree.
struct ECMARegexFlags: OptionSet, Hashable, Sendable {
    let rawValue: UInt8
    /// `i`: letters match regardless of case (simple case folding).
    static let ignoreCase = ECMARegexFlags(rawValue: 1 << 0)
    /// `m`: `^` and `$` also match next to line terminators.
    static let multiline = ECMARegexFlags(rawValue: 1 << 1)
    /// `s`: `.` also matches line terminators.
    static let dotAll = ECMARegexFlags(rawValue: 1 << 2)
}

/// One of the character-class escapes `\d \D \s \S \w \W \p{…} \P{…}`.
struct ECMARegexClassEscape: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case digit
        case space
        case word
        case property(ECMARegexUnicodeProperty)
    }
    let kind: Kind
    /// True for the upper-case forms `\D \S \W \P{…}`: every code point outside the set.
    let negated: Bool
}

/// One member of a bracketed character class.
enum ECMARegexClassItem: Hashable, Sendable {
    case character(UInt32)
    case range(UInt32, UInt32)
    case escape(ECMARegexClassEscape)
}

/// One node of a parsed pattern. Code points are `UInt32` because `\uD800`-style escapes name lone surrogates,
/// which `Unicode.Scalar` cannot hold.
indirect enum ECMARegexNode: Sendable {
    case empty
    /// An Alternative: terms one after the other.
    case sequence([ECMARegexNode])
    /// A Disjunction of two or more alternatives.
    case alternation([ECMARegexNode])
    case character(UInt32)
    case dot
    /// `^`
    case lineStart
    /// `$`
    case lineEnd
    /// `\b` (or `\B` when negated)
    case wordBoundary(negated: Bool)
    case classEscape(ECMARegexClassEscape)
    case characterClass([ECMARegexClassItem], negated: Bool)
    /// `(…)`, `(?<name>…)` (capture: the group's number, from 1) or `(?:…)` (capture nil).
    case group(capture: Int?, ECMARegexNode)
    /// `(?ims-ims:…)`
    case modifiers(adding: ECMARegexFlags, removing: ECMARegexFlags, ECMARegexNode)
    /// `(?=…)` or `(?!…)`
    case lookahead(negated: Bool, ECMARegexNode)
    /// `(?<=…)` or `(?<!…)`
    case lookbehind(negated: Bool, ECMARegexNode)
    /// `\1`, `\2`…
    case backreference(Int)
    /// `\k<name>`; the name can belong to several groups in different alternatives.
    case namedBackreference(String)
    /// An atom with a quantifier. Counts above `Int.max` are stored as `Int.max`; `max` nil means no upper bound.
    case quantified(ECMARegexNode, min: Int, max: Int?, greedy: Bool)
}

/// A parsed pattern.
struct ECMARegexSyntaxTree: Sendable {
    let root: ECMARegexNode
    /// How many capturing groups the pattern has.
    let captureCount: Int
    /// The numbers of the groups each name was given to, in order.
    let groupNumbersByName: [String: [Int]]
}

/// Why a pattern is not a valid ECMA-262 pattern, or not one this parser accepts.
struct ECMARegexSyntaxError: Error, Sendable {
    /// Where the problem was found, in Unicode scalars from the start of the pattern.
    let offset: Int
    let message: String
    /// True when the pattern is valid ECMA-262 but nests groups deeper than ``ECMARegexParser/maximumDepth``.
    var isNestingLimit = false
}

/// Parses an ECMA-262 pattern with the `u` flag into an ``ECMARegexSyntaxTree``; with `annexB`, by the syntax of
/// ECMA-262's Annex B (B.1.2, the web's legacy syntax, which a pattern without the `u` flag has): a lone `]`, `{` or
/// `}` is a literal, any character but `c` may be escaped, `\c`, `\x` and `\u` without what they need stand for
/// themselves, `\0` starts an octal escape, `\p` is `p`, and a class escape may end a range (`[\w-]`).
struct ECMARegexParser {
    /// How deeply groups and lookarounds may nest. The parser and the translator recurse once per level, so a bound
    /// keeps them within the smallest thread stacks; real patterns stay far below it.
    static let maximumDepth = 256

    /// Parses `pattern`, throwing the first syntax error.
    static func parse(_ pattern: String, annexB: Bool = false) throws(ECMARegexSyntaxError) -> ECMARegexSyntaxTree {
        var parser = ECMARegexParser(scalars: Array(pattern.unicodeScalars))
        parser.annexB = annexB
        return try parser.parsePattern()
    }

    /// A step on the way from the root to a group: which Disjunction, and which of its alternatives. Two groups
    /// can share a name only when their paths part in different alternatives of one Disjunction.
    private struct PathStep: Equatable {
        let disjunction: Int
        let alternative: Int
    }

    private let scalars: [Unicode.Scalar]
    private var annexB = false
    private var position = 0
    private var captureCount = 0
    private var depth = 0
    private var disjunctionCount = 0
    private var namedGroups: [(name: String, number: Int, path: [PathStep])] = []
    private var numberedReferences: [(number: Int, offset: Int)] = []
    private var namedReferences: [(name: String, offset: Int)] = []

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    // MARK: Pattern, Disjunction, Alternative, Term

    private mutating func parsePattern() throws(ECMARegexSyntaxError) -> ECMARegexSyntaxTree {
        let root = try parseDisjunction(path: [])
        if position < scalars.count {
            // parseAlternative stops only at the end, `|` (consumed by parseDisjunction) or `)`.
            throw failure("unmatched ')'")
        }
        for reference in numberedReferences where reference.number > captureCount {
            let groups = captureCount == 1 ? "1 capturing group" : "\(captureCount) capturing groups"
            throw failure(
                "backreference \\\(reference.number) names a group that does not exist (the pattern has \(groups))",
                at: reference.offset)
        }
        var numbersByName: [String: [Int]] = [:]
        for group in namedGroups {
            numbersByName[group.name, default: []].append(group.number)
        }
        for reference in namedReferences where numbersByName[reference.name] == nil {
            throw failure(
                "backreference \\k<\(reference.name)> names a group that does not exist", at: reference.offset)
        }
        return ECMARegexSyntaxTree(root: root, captureCount: captureCount, groupNumbersByName: numbersByName)
    }

    private mutating func parseDisjunction(path: [PathStep]) throws(ECMARegexSyntaxError) -> ECMARegexNode {
        let disjunction = disjunctionCount
        disjunctionCount += 1
        var alternatives = [try parseAlternative(path: path + [PathStep(disjunction: disjunction, alternative: 0)])]
        while peek() == "|" {
            position += 1
            let step = PathStep(disjunction: disjunction, alternative: alternatives.count)
            alternatives.append(try parseAlternative(path: path + [step]))
        }
        return alternatives.count == 1 ? alternatives[0] : .alternation(alternatives)
    }

    private mutating func parseAlternative(path: [PathStep]) throws(ECMARegexSyntaxError) -> ECMARegexNode {
        var terms: [ECMARegexNode] = []
        while let next = peek(), next != "|", next != ")" {
            terms.append(try parseTerm(path: path))
        }
        switch terms.count {
        case 0: return .empty
        case 1: return terms[0]
        default: return .sequence(terms)
        }
    }

    /// A Term: an Assertion, or an Atom with an optional Quantifier.
    private mutating func parseTerm(path: [PathStep]) throws(ECMARegexSyntaxError) -> ECMARegexNode {
        let start = position
        let atom: ECMARegexNode
        switch scalars[position] {
        case "^":
            position += 1
            return .lineStart
        case "$":
            position += 1
            return .lineEnd
        case "\\" where peek(1) == "b" || peek(1) == "B":
            position += 2
            return .wordBoundary(negated: scalars[start + 1] == "B")
        case "(":
            if peek(1) == "?", let kind = peek(2), kind == "=" || kind == "!" {
                position += 3
                let body = try parseGroupBody(openedAt: start, path: path)
                // With the `u` flag a lookahead is an Assertion, which takes no quantifier.
                return .lookahead(negated: kind == "!", body)
            }
            if peek(1) == "?", peek(2) == "<", let kind = peek(3), kind == "=" || kind == "!" {
                position += 4
                let body = try parseGroupBody(openedAt: start, path: path)
                return .lookbehind(negated: kind == "!", body)
            }
            atom = try parseGroup(path: path)
        case ".":
            position += 1
            atom = .dot
        case "[":
            atom = try parseCharacterClass()
        case "\\":
            position += 1
            atom = try parseAtomEscape(escapeStart: start)
        case "*", "+", "?":
            throw failure("the quantifier '\(scalars[position])' has nothing to repeat")
        case "{":
            if let _ = try scanBraceQuantifier() {
                throw failure("the quantifier '{' has nothing to repeat")
            }
            guard annexB else { throw failure("a lone '{' is not allowed with the u flag; write \\{") }
            atom = .character(scalars[position].value)
            position += 1
        case "}", "]":
            guard annexB else {
                throw failure(
                    "a lone '\(scalars[position])' is not allowed with the u flag; write \\\(scalars[position])")
            }
            atom = .character(scalars[position].value)
            position += 1
        default:
            atom = .character(scalars[position].value)
            position += 1
        }
        return try parseQuantifier(applyingTo: atom)
    }

    // MARK: Quantifiers

    private mutating func parseQuantifier(applyingTo atom: ECMARegexNode) throws(ECMARegexSyntaxError)
        -> ECMARegexNode
    {
        let bounds: (min: Int, max: Int?)
        switch peek() {
        case "*":
            position += 1
            bounds = (0, nil)
        case "+":
            position += 1
            bounds = (1, nil)
        case "?":
            position += 1
            bounds = (0, 1)
        case "{":
            guard let quantifier = try scanBraceQuantifier() else {
                // Annex B: a `{` that does not start a quantifier is the next atom, a literal.
                if annexB { return atom }
                throw failure("incomplete quantifier: '{' must be followed by digits and '}' (or write \\{)")
            }
            position = quantifier.end
            bounds = (quantifier.min, quantifier.max)
        default:
            return atom
        }
        var greedy = true
        if peek() == "?" {
            position += 1
            greedy = false
        }
        return .quantified(atom, min: bounds.min, max: bounds.max, greedy: greedy)
    }

    /// Reads `{n}`, `{n,}` or `{n,m}` at the current position without consuming it. Returns nil when the text is
    /// not of that form; throws when it is but `n` exceeds `m`.
    private func scanBraceQuantifier() throws(ECMARegexSyntaxError) -> (min: Int, max: Int?, end: Int)? {
        var index = position + 1
        func digits() -> [Unicode.Scalar] {
            var run: [Unicode.Scalar] = []
            while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                run.append(scalars[index])
                index += 1
            }
            return run
        }
        let low = digits()
        guard !low.isEmpty, index < scalars.count else { return nil }
        if scalars[index] == "}" {
            let value = Self.saturatingValue(low)
            return (value, value, index + 1)
        }
        guard scalars[index] == "," else { return nil }
        index += 1
        let high = digits()
        guard index < scalars.count, scalars[index] == "}" else { return nil }
        if high.isEmpty {
            return (Self.saturatingValue(low), nil, index + 1)
        }
        if Self.compareDecimal(low, high) > 0 {
            throw failure("numbers out of order in the {} quantifier: the minimum exceeds the maximum")
        }
        return (Self.saturatingValue(low), Self.saturatingValue(high), index + 1)
    }

    private static func saturatingValue(_ digits: [Unicode.Scalar]) -> Int {
        var value = 0
        for digit in digits {
            let (times, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times.addingReportingOverflow(Int(digit.value - 48))
            if overflowA || overflowB { return Int.max }
            value = sum
        }
        return value
    }

    /// Compares two decimal digit strings by value, whatever their length: -1, 0 or 1.
    private static func compareDecimal(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        let a = a.drop { $0 == "0" }
        let b = b.drop { $0 == "0" }
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for (x, y) in zip(a, b) where x != y {
            return x.value < y.value ? -1 : 1
        }
        return 0
    }

    // MARK: Groups

    /// A group that is an Atom: `(…)`, `(?<name>…)`, `(?:…)` or `(?ims-ims:…)`.
    private mutating func parseGroup(path: [PathStep]) throws(ECMARegexSyntaxError) -> ECMARegexNode {
        let start = position
        guard peek(1) == "?" else {
            position += 1
            captureCount += 1
            let number = captureCount
            return .group(capture: number, try parseGroupBody(openedAt: start, path: path))
        }
        switch peek(2) {
        case ":":
            position += 3
            return .group(capture: nil, try parseGroupBody(openedAt: start, path: path))
        case "<":
            position += 3
            let name = try parseGroupName(nameStart: position)
            captureCount += 1
            let number = captureCount
            for other in namedGroups where other.name == name && Self.mightBothParticipate(other.path, path) {
                throw failure(
                    "duplicate group name '\(name)': groups may share a name only in different alternatives", at: start)
            }
            namedGroups.append((name, number, path))
            return .group(capture: number, try parseGroupBody(openedAt: start, path: path))
        case "P" where peek(3) == "<" || peek(3) == "=" || peek(3) == ">":
            throw failure("'(?P' is Python syntax, not ECMA-262: write (?<name>…) and \\k<name>")
        case "#":
            throw failure("'(?#' comments are not ECMA-262")
        default:
            position += 2
            let adding = try parseModifierFlags()
            var removing: ECMARegexFlags = []
            if peek() == "-" {
                position += 1
                removing = try parseModifierFlags()
                if adding.isEmpty && removing.isEmpty {
                    throw failure("a modifier group '(?-:' must name at least one flag", at: start)
                }
                if !adding.isDisjoint(with: removing) {
                    throw failure("a modifier group cannot both add and remove the same flag", at: start)
                }
            }
            guard peek() == ":" else {
                if peek() == ")", !adding.isEmpty || !removing.isEmpty {
                    throw failure(
                        "inline flags such as (?i) are not ECMA-262; a modifier group needs a body: (?i:…)", at: start)
                }
                if adding.isEmpty && removing.isEmpty {
                    throw failure(
                        "invalid group: '(?' must be followed by ':', '=', '!', '<=', '<!', '<name>' or flags",
                        at: start)
                }
                throw failure("invalid modifier group: expected ':' after the flags")
            }
            position += 1
            return .modifiers(adding: adding, removing: removing, try parseGroupBody(openedAt: start, path: path))
        }
    }

    /// Reads modifier flags (`i`, `m`, `s`), each at most once.
    private mutating func parseModifierFlags() throws(ECMARegexSyntaxError) -> ECMARegexFlags {
        var flags: ECMARegexFlags = []
        while let next = peek() {
            let flag: ECMARegexFlags
            switch next {
            case "i": flag = .ignoreCase
            case "m": flag = .multiline
            case "s": flag = .dotAll
            default: return flags
            }
            if flags.contains(flag) {
                throw failure("the flag '\(next)' appears twice in a modifier group")
            }
            flags.insert(flag)
            position += 1
        }
        return flags
    }

    /// The Disjunction of a group and its closing parenthesis.
    private mutating func parseGroupBody(openedAt start: Int, path: [PathStep]) throws(ECMARegexSyntaxError)
        -> ECMARegexNode
    {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maximumDepth {
            var error = failure("groups nest deeper than \(Self.maximumDepth) levels", at: start)
            error.isNestingLimit = true
            throw error
        }
        let body = try parseDisjunction(path: path)
        guard peek() == ")" else {
            throw failure("missing ')' for the group opened at offset \(start)")
        }
        position += 1
        return body
    }

    /// Whether two groups could both take part in one match: true unless their paths part in different
    /// alternatives of the same Disjunction (ECMA-262's MightBothParticipate).
    private static func mightBothParticipate(_ a: [PathStep], _ b: [PathStep]) -> Bool {
        for (x, y) in zip(a, b) where x != y {
            return x.disjunction != y.disjunction
        }
        return true
    }

    /// Reads `RegExpIdentifierName >` (the `<` is already consumed) and returns the name's string value.
    private mutating func parseGroupName(nameStart: Int) throws(ECMARegexSyntaxError) -> String {
        var name = String.UnicodeScalarView()
        while true {
            guard let next = peek() else {
                throw failure("unterminated group name: expected '>'")
            }
            if next == ">" {
                position += 1
                break
            }
            let characterStart = position
            var value: UInt32
            if next == "\\" {
                position += 1
                guard peek() == "u" else {
                    throw failure("only \\u escapes may appear in a group name")
                }
                position += 1
                value = try parseUnicodeEscape(escapeStart: characterStart)
            } else {
                value = next.value
                position += 1
            }
            guard let scalar = Unicode.Scalar(value) else {
                throw failure("a group name cannot contain a lone surrogate", at: characterStart)
            }
            let allowed =
                name.isEmpty
                ? scalar == "$" || scalar == "_" || scalar.properties.isIDStart
                : scalar == "$" || scalar == "\u{200C}" || scalar == "\u{200D}" || scalar.properties.isIDContinue
            guard allowed else {
                throw failure(
                    "'\(scalar.escaped(asASCII: false))' cannot \(name.isEmpty ? "start" : "appear in") a group name",
                    at: characterStart)
            }
            name.append(scalar)
        }
        guard !name.isEmpty else {
            throw failure("a group name cannot be empty", at: nameStart)
        }
        return String(name)
    }

    // MARK: Escapes

    /// An AtomEscape; the backslash is consumed and `b`/`B` were handled as assertions.
    private mutating func parseAtomEscape(escapeStart: Int) throws(ECMARegexSyntaxError) -> ECMARegexNode {
        guard let next = peek() else {
            throw failure("'\\' at the end of the pattern", at: escapeStart)
        }
        if let escape = try parseClassEscapeLetter(escapeStart: escapeStart) {
            return .classEscape(escape)
        }
        switch next {
        case "k":
            position += 1
            guard peek() == "<" else {
                throw failure("\\k must be followed by <name>", at: escapeStart)
            }
            position += 1
            let name = try parseGroupName(nameStart: position)
            namedReferences.append((name, escapeStart))
            return .namedBackreference(name)
        case "1"..."9":
            var digits: [Unicode.Scalar] = []
            while let digit = peek(), ("0"..."9").contains(digit) {
                digits.append(digit)
                position += 1
            }
            let number = Self.saturatingValue(digits)
            numberedReferences.append((number, escapeStart))
            return .backreference(number)
        default:
            return .character(try parseCharacterEscape(escapeStart: escapeStart, inClass: false))
        }
    }

    /// `d D s S w W p{…} P{…}` after a backslash, or nil (consuming nothing) for any other letter.
    private mutating func parseClassEscapeLetter(escapeStart: Int) throws(ECMARegexSyntaxError) -> ECMARegexClassEscape?
    {
        guard let next = peek() else { return nil }
        let kind: ECMARegexClassEscape.Kind
        switch next {
        case "d", "D": kind = .digit
        case "s", "S": kind = .space
        case "w", "W": kind = .word
        case "p", "P":
            if annexB { return nil }
            position += 1
            return ECMARegexClassEscape(
                kind: .property(try parseUnicodeProperty(escapeStart: escapeStart)), negated: next == "P")
        default: return nil
        }
        position += 1
        return ECMARegexClassEscape(kind: kind, negated: next == "D" || next == "S" || next == "W")
    }

    /// A CharacterEscape after a backslash: the code point it stands for.
    private mutating func parseCharacterEscape(escapeStart: Int, inClass: Bool) throws(ECMARegexSyntaxError) -> UInt32 {
        guard let next = peek() else {
            throw failure("'\\' at the end of the pattern", at: escapeStart)
        }
        position += 1
        switch next {
        case "f": return 0x0C
        case "n": return 0x0A
        case "r": return 0x0D
        case "t": return 0x09
        case "v": return 0x0B
        case "c":
            guard let letter = peek(), ("a"..."z").contains(letter) || ("A"..."Z").contains(letter) else {
                if annexB {
                    // Annex B: the backslash is itself, and the `c` the next atom.
                    position -= 1
                    return 0x5C
                }
                throw failure("\\c must be followed by an ASCII letter", at: escapeStart)
            }
            position += 1
            return letter.value % 32
        case "0":
            if annexB, let digit = peek(), ("0"..."7").contains(digit) {
                // Annex B's LegacyOctalEscapeSequence: up to three octal digits, at most 0o377.
                var value: UInt32 = 0
                var count = 0
                while let next = peek(), ("0"..."7").contains(next), count < 2, value * 8 + (next.value - 48) <= 0o377 {
                    value = value * 8 + (next.value - 48)
                    position += 1
                    count += 1
                }
                return value
            }
            if let digit = peek(), ("0"..."9").contains(digit) {
                throw failure(
                    "\\0 followed by a digit (a legacy octal escape) is not allowed with the u flag", at: escapeStart)
            }
            return 0
        case "x":
            guard let high = peek().flatMap(Self.hexValue), let low = peek(1).flatMap(Self.hexValue) else {
                if annexB { return next.value }
                throw failure("\\x must be followed by two hexadecimal digits", at: escapeStart)
            }
            position += 2
            return high * 16 + low
        case "u":
            if annexB, fourHexDigits(at: position) == nil { return next.value }
            return try parseUnicodeEscape(escapeStart: escapeStart)
        case "^", "$", "\\", ".", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "/":
            return next.value
        case "-" where inClass:
            return next.value
        default:
            if ("1"..."9").contains(next) {
                throw failure("a backreference cannot appear in a character class", at: escapeStart)
            }
            // Annex B's IdentityEscape: any character but `c` (handled above) stands for itself.
            if annexB { return next.value }
            throw failure(
                "\\\(next.escaped(asASCII: false)) is not a valid escape with the u flag "
                    + "(only syntax characters and '/' may be escaped)", at: escapeStart)
        }
    }

    /// `XXXX`, a surrogate pair `XXXX\uXXXX`, or `{X…}` after `\u`: the code point.
    private mutating func parseUnicodeEscape(escapeStart: Int) throws(ECMARegexSyntaxError) -> UInt32 {
        if peek() == "{" {
            var index = position + 1
            var value: UInt32 = 0
            var count = 0
            while index < scalars.count, let digit = Self.hexValue(scalars[index]) {
                // Saturate above 10FFFF: leading zeros are allowed, so the digit count alone says nothing.
                value = Swift.min(value * 16 + digit, 0x110000)
                index += 1
                count += 1
            }
            guard count > 0, index < scalars.count, scalars[index] == "}" else {
                throw failure("\\u{ must be followed by hexadecimal digits and '}'", at: escapeStart)
            }
            guard value <= 0x10FFFF else {
                throw failure("\\u{…} names a code point above 10FFFF", at: escapeStart)
            }
            position = index + 1
            return value
        }
        guard let lead = fourHexDigits(at: position) else {
            throw failure("\\u must be followed by four hexadecimal digits or {code point}", at: escapeStart)
        }
        position += 4
        if (0xD800...0xDBFF).contains(lead), peek() == "\\", peek(1) == "u",
            let trail = fourHexDigits(at: position + 2),
            (0xDC00...0xDFFF).contains(trail)
        {
            position += 6
            return 0x10000 + ((lead - 0xD800) << 10) + (trail - 0xDC00)
        }
        return lead
    }

    private func fourHexDigits(at index: Int) -> UInt32? {
        guard index + 4 <= scalars.count else { return nil }
        var value: UInt32 = 0
        for offset in 0..<4 {
            guard let digit = Self.hexValue(scalars[index + offset]) else { return nil }
            value = value * 16 + digit
        }
        return value
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 48
        case "a"..."f": scalar.value - 87
        case "A"..."F": scalar.value - 55
        default: nil
        }
    }

    /// `{Name=Value}` or `{NameOrValue}` after `\p` or `\P`.
    private mutating func parseUnicodeProperty(escapeStart: Int) throws(ECMARegexSyntaxError)
        -> ECMARegexUnicodeProperty
    {
        guard peek() == "{" else {
            throw failure("\\p and \\P must be followed by {property} with the u flag", at: escapeStart)
        }
        position += 1
        var name = ""
        var value: String?
        while true {
            guard let next = peek() else {
                throw failure("unterminated property escape: expected '}'", at: escapeStart)
            }
            position += 1
            if next == "}" { break }
            if next == "=", value == nil {
                value = ""
                continue
            }
            // UnicodePropertyValueCharacter: ASCII letters, digits and `_` (a name before `=` has no digits).
            let isPropertyCharacter =
                ("a"..."z").contains(next) || ("A"..."Z").contains(next) || ("0"..."9").contains(next) || next == "_"
            guard isPropertyCharacter else {
                throw failure(
                    "'\(next.escaped(asASCII: false))' cannot appear in a Unicode property escape", at: position - 1)
            }
            if value == nil { name.unicodeScalars.append(next) } else { value!.unicodeScalars.append(next) }
        }
        let written = value.map { "\(name)=\($0)" } ?? name
        if let value {
            guard name.unicodeScalars.allSatisfy({ !("0"..."9").contains($0) }) else {
                throw failure("unknown Unicode property name '\(name)' in \\p{\(written)}", at: escapeStart)
            }
            guard let property = ECMARegexUnicodeProperty(name: name, value: value) else {
                if ECMARegexUnicodeProperty.isPropertyName(name) {
                    throw failure(
                        "unknown value '\(value)' for the property \(name) in \\p{\(written)}", at: escapeStart)
                }
                throw failure(
                    "unknown Unicode property name '\(name)' in \\p{\(written)}: ECMA-262 allows General_Category (gc), "
                        + "Script (sc) and Script_Extensions (scx)", at: escapeStart)
            }
            return property
        }
        guard let property = ECMARegexUnicodeProperty(loneNameOrValue: name) else {
            throw failure(
                "unknown Unicode property '\(name)' in \\p{\(written)} (names are case-sensitive; a script needs "
                    + "Script= or sc=)", at: escapeStart)
        }
        return property
    }

    // MARK: Character classes

    /// `[…]` or `[^…]`.
    private mutating func parseCharacterClass() throws(ECMARegexSyntaxError) -> ECMARegexNode {
        let start = position
        position += 1
        var negated = false
        if peek() == "^" {
            negated = true
            position += 1
        }
        var items: [ECMARegexClassItem] = []
        while true {
            guard let next = peek() else {
                throw failure("missing ']' for the character class opened at offset \(start)")
            }
            if next == "]" {
                position += 1
                break
            }
            let firstStart = position
            let first = try parseClassAtom()
            guard peek() == "-", let afterDash = peek(1), afterDash != "]" else {
                items.append(first)
                continue
            }
            position += 1
            let second = try parseClassAtom()
            guard case .character(let low) = first, case .character(let high) = second else {
                if annexB {
                    // Annex B: a class escape at either end makes the `-` a literal.
                    items += [first, .character(0x2D), second]
                    continue
                }
                throw failure(
                    "a class escape such as \\d cannot be the end of a range in a character class with the u flag",
                    at: firstStart)
            }
            guard low <= high else {
                throw failure("range out of order in character class", at: firstStart)
            }
            items.append(.range(low, high))
        }
        return .characterClass(items, negated: negated)
    }

    /// One ClassAtom: a character or a class escape.
    private mutating func parseClassAtom() throws(ECMARegexSyntaxError) -> ECMARegexClassItem {
        let start = position
        let next = scalars[position]
        position += 1
        guard next == "\\" else {
            return .character(next.value)
        }
        guard let escaped = peek() else {
            throw failure("'\\' at the end of the pattern", at: start)
        }
        switch escaped {
        case "b":
            position += 1
            return .character(0x08)
        case "B":
            throw failure("\\B cannot appear in a character class", at: start)
        case "k":
            throw failure("\\k cannot appear in a character class", at: start)
        default:
            if let escape = try parseClassEscapeLetter(escapeStart: start) {
                return .escape(escape)
            }
            return .character(try parseCharacterEscape(escapeStart: start, inClass: true))
        }
    }

    // MARK: Helpers

    private func peek(_ ahead: Int = 0) -> Unicode.Scalar? {
        position + ahead < scalars.count ? scalars[position + ahead] : nil
    }

    private func failure(_ message: String, at offset: Int? = nil) -> ECMARegexSyntaxError {
        ECMARegexSyntaxError(offset: offset ?? position, message: message)
    }
}
