// Translates a parsed ECMA-262 pattern into an ICU pattern (the syntax of NSRegularExpression) that matches the same
// strings. Every construct is spelled out rather than left to ICU's defaults where the two differ:
//
// - `\d \w \b` are ASCII-only in ECMA-262 and Unicode-aware in ICU; `\s` is ECMA-262's WhiteSpace and
//   LineTerminator set. All become explicit sets.
// - `.` excludes exactly the four line terminators \n \r U+2028 U+2029 (ICU's `.` excludes more).
// - `^` and `$` become `\A` and `\z` (ICU's `$` also matches before a final line terminator); with the `m`
//   modifier, lookarounds over the four line terminators.
// - Literals under `i` become one-member sets, so that ICU compares them by simple case folding as ECMA-262 does
//   (ICU matches a literal `ß` against "ss" under full case folding; a set never matches two characters).
// - `\W \S` are set differences from all code points (their sets are closed under case, so ICU's case closure
//   leaves them as ECMA-262 has them). `\P{…}` becomes ICU's `\P{…}`, except under `i`, where it is rejected: ICU
//   closes a property over case before complementing it and ECMA-262 complements first, so `(?i:\P{Lu})` matches
//   "a" and "A" in ECMA-262 and neither in ICU.
// - Quantifiers are greedy: whether a match exists does not depend on which repetition count is tried first, and
//   ICU's lazy loops over a body that can match the empty string run forever or miss matches. Laziness is kept only
//   inside a positive lookaround that holds a capture a backreference reads, where the first match found decides
//   what the capture holds.
// - Only groups that a backreference names stay capturing, and each gets an empty marker group at its end. In
//   ECMA-262 a backreference to a group that has not matched matches the empty string; in ICU it fails, so a
//   backreference becomes `(?:\n|(?!\m))`: the group's text, or nothing when the marker m has not matched.
// - ICU needs lookbehinds of bounded length and rejects `??` and `*?` in them: quantifiers inside a lookbehind are
//   written `{m,n}`, unbounded ones with an upper bound, and the translation records the input length up to which
//   that bound changes nothing.
// - ICU's counted loops `{m,n}` go on repeating a body that matched the empty string (its unbounded loops stop),
//   where ECMA-262 stops; a large `n` on a body that can match the empty string would spend ICU's stack. Such
//   bounds are made small inside lookbehinds and dropped outside them, again with the input length recorded.

/// Turns an ``ECMARegexSyntaxTree`` into an ICU pattern.
struct ECMARegexTranslator {
    /// The largest count ICU accepts in `{n,m}`, and the longest lookbehind (in UTF-16 code units) it accepts.
    static let icuCountLimit = 16_777_215
    /// Outside lookbehinds, a body that can match the empty string and may repeat more than this many times beyond
    /// its minimum gets no upper bound instead (ICU would try every repetition).
    static let nullableRepetitionLimit = 65_536
    /// Inside lookbehinds, the most repetitions beyond the minimum of an unbounded body that can match the empty
    /// string.
    static let nullableLookbehindBound = 4_096

    /// A valid ECMA-262 pattern that this translation cannot give to ICU.
    struct Unsupported: Error {
        let message: String
    }

    /// A translated pattern.
    struct Output {
        /// The ICU pattern.
        let icuPattern: String
        /// The longest text, in UTF-16 code units, on which the ICU pattern is known to behave as the ECMA-262
        /// pattern; `Int.max` when there is no such limit. Bounds given to quantifiers set it.
        let inputLimit: Int
        /// Whether an unbounded quantifier inside a lookbehind was given the bound `lookbehindBound`, so that a
        /// smaller bound could let ICU accept a pattern it rejects.
        let boundsLookbehind: Bool
        /// The Unicode properties the pattern uses, to name one ICU does not know.
        let properties: Set<ECMARegexUnicodeProperty>
    }

    /// Translates `tree`. `lookbehindBound` is the most extra repetitions an unbounded quantifier inside a
    /// lookbehind may take (ICU needs a bound).
    static func translate(_ tree: ECMARegexSyntaxTree, lookbehindBound: Int) throws(Unsupported) -> Output {
        var translator = ECMARegexTranslator(tree: tree, lookbehindBound: lookbehindBound)
        try translator.collectReferences(tree.root, inLookbehind: false)
        translator.assignICUGroupNumbers(tree.root)
        try translator.emit(tree.root, Context())
        return Output(
            icuPattern: translator.output, inputLimit: translator.inputLimit,
            boundsLookbehind: translator.boundsLookbehind, properties: translator.properties)
    }

    private let tree: ECMARegexSyntaxTree
    private let lookbehindBound: Int
    private var output = ""
    private var inputLimit = Int.max
    private var boundsLookbehind = false
    private var properties: Set<ECMARegexUnicodeProperty> = []
    /// ECMA-262 group numbers that some backreference names.
    private var referenced: Set<Int> = []
    /// For each referenced ECMA-262 group: its ICU group number and that of its marker.
    private var icuGroups: [Int: (group: Int, marker: Int)] = [:]
    private var icuGroupCount = 0

    private init(tree: ECMARegexSyntaxTree, lookbehindBound: Int) {
        self.tree = tree
        self.lookbehindBound = lookbehindBound
    }

    // MARK: Passes before emission

    /// Finds the groups that backreferences name; rejects backreferences inside lookbehinds, whose length ICU
    /// cannot bound.
    private mutating func collectReferences(_ node: ECMARegexNode, inLookbehind: Bool) throws(Unsupported) {
        switch node {
        case .backreference(let number):
            if inLookbehind { throw Self.backreferenceInLookbehind }
            referenced.insert(number)
        case .namedBackreference(let name):
            if inLookbehind { throw Self.backreferenceInLookbehind }
            referenced.formUnion(tree.groupNumbersByName[name] ?? [])
        case .sequence(let nodes), .alternation(let nodes):
            for child in nodes {
                try collectReferences(child, inLookbehind: inLookbehind)
            }
        case .group(_, let body), .modifiers(_, _, let body), .lookahead(_, let body), .quantified(let body, _, _, _):
            try collectReferences(body, inLookbehind: inLookbehind)
        case .lookbehind(_, let body):
            try collectReferences(body, inLookbehind: true)
        case .empty, .character, .dot, .lineStart, .lineEnd, .wordBoundary, .classEscape, .characterClass:
            break
        }
    }

    private static let backreferenceInLookbehind = Unsupported(
        message: "a backreference inside a lookbehind: ICU needs lookbehinds of bounded length")

    /// Numbers the ICU groups in the order `emit` opens them: a referenced group, the referenced groups inside it,
    /// then its marker.
    private mutating func assignICUGroupNumbers(_ node: ECMARegexNode) {
        switch node {
        case .group(let capture?, let body) where referenced.contains(capture):
            icuGroupCount += 1
            let group = icuGroupCount
            assignICUGroupNumbers(body)
            icuGroupCount += 1
            icuGroups[capture] = (group, icuGroupCount)
        case .sequence(let nodes), .alternation(let nodes):
            for child in nodes {
                assignICUGroupNumbers(child)
            }
        case .group(_, let body), .modifiers(_, _, let body), .lookahead(_, let body), .lookbehind(_, let body),
            .quantified(let body, _, _, _):
            assignICUGroupNumbers(body)
        case .empty, .character, .dot, .lineStart, .lineEnd, .wordBoundary, .classEscape, .characterClass,
            .backreference, .namedBackreference:
            break
        }
    }

    // MARK: Emission

    /// What the emission of a node depends on besides the node.
    private struct Context {
        /// The flags the modifier groups around the node set.
        var flags: ECMARegexFlags = []
        var inLookbehind = false
        /// Inside a positive lookaround that holds a capture a backreference reads.
        var keepsLaziness = false
    }

    private static let lineTerminators = #"[\x{A}\x{D}\x{2028}\x{2029}]"#
    private static let anyCodePoint = #"[\x{0}-\x{10FFFF}]"#

    private mutating func emit(_ node: ECMARegexNode, _ context: Context) throws(Unsupported) {
        let flags = context.flags
        switch node {
        case .empty:
            break
        case .sequence(let terms):
            for term in terms {
                try emit(term, context)
            }
        case .alternation(let alternatives):
            output += "(?:"
            for (index, alternative) in alternatives.enumerated() {
                if index > 0 { output += "|" }
                try emit(alternative, context)
            }
            output += ")"
        case .character(let value):
            output += flags.contains(.ignoreCase) ? "[\(Self.setMember(value))]" : Self.literal(value)
        case .dot:
            output += flags.contains(.dotAll) ? Self.anyCodePoint : #"[^\x{A}\x{D}\x{2028}\x{2029}]"#
        case .lineStart:
            output += flags.contains(.multiline) ? #"(?:\A|(?<=\#(Self.lineTerminators)))"# : #"\A"#
        case .lineEnd:
            output += flags.contains(.multiline) ? #"(?:\z|(?=\#(Self.lineTerminators)))"# : #"\z"#
        case .wordBoundary(let negated):
            let word = "[\(Self.wordMembers(flags))]"
            output +=
                negated
                ? "(?:(?<=\(word))(?=\(word))|(?<!\(word))(?!\(word)))"
                : "(?:(?<=\(word))(?!\(word))|(?<!\(word))(?=\(word)))"
        case .classEscape(let escape):
            output += "[\(try classEscapeMembers(escape, flags: flags))]"
        case .characterClass(let items, let negated):
            guard !items.isEmpty else {
                // `[]` matches nothing and `[^]` any code point; ICU has no empty class syntax.
                output += negated ? Self.anyCodePoint : #"[^\x{0}-\x{10FFFF}]"#
                return
            }
            output += negated ? "[^" : "["
            for item in items {
                switch item {
                case .character(let value):
                    output += Self.setMember(value)
                case .range(let low, let high):
                    output += "\(Self.setMember(low))-\(Self.setMember(high))"
                case .escape(let escape):
                    output += try classEscapeMembers(escape, flags: flags)
                }
            }
            output += "]"
        case .group(let capture, let body):
            if let capture, icuGroups[capture] != nil {
                output += "("
                try emit(body, context)
                output += "())"
            } else {
                output += "(?:"
                try emit(body, context)
                output += ")"
            }
        case .modifiers(let adding, let removing, let body):
            // ICU's own case-insensitive mode follows ECMA-262's `i`; `m` and `s` are applied by this translation.
            output +=
                adding.contains(.ignoreCase) ? "(?i:" : removing.contains(.ignoreCase) ? "(?-i:" : "(?:"
            var inner = context
            inner.flags = flags.union(adding).subtracting(removing)
            try emit(body, inner)
            output += ")"
        case .lookahead(let negated, let body):
            output += negated ? "(?!" : "(?="
            try emit(body, lookaroundContext(context, negated: negated, body: body))
            output += ")"
        case .lookbehind(let negated, let body):
            output += negated ? "(?<!" : "(?<="
            var inner = lookaroundContext(context, negated: negated, body: body)
            inner.inLookbehind = true
            try emit(body, inner)
            output += ")"
        case .backreference(let number):
            emitBackreference(to: [number])
        case .namedBackreference(let name):
            emitBackreference(to: tree.groupNumbersByName[name] ?? [])
        case .quantified(let atom, let min, let max, let greedy):
            output += "(?:"
            try emit(atom, context)
            output += ")"
            output += try quantifier(
                min: min, max: max, nullableBody: Self.canMatchEmpty(atom), inLookbehind: context.inLookbehind)
            if !greedy && context.keepsLaziness { output += "?" }
        }
    }

    /// The context inside a lookaround: laziness starts to matter in a positive one that holds a referenced capture.
    private func lookaroundContext(_ context: Context, negated: Bool, body: ECMARegexNode) -> Context {
        var inner = context
        if !negated && holdsReferencedCapture(body) { inner.keepsLaziness = true }
        return inner
    }

    private func holdsReferencedCapture(_ node: ECMARegexNode) -> Bool {
        switch node {
        case .group(let capture?, _) where referenced.contains(capture):
            return true
        case .sequence(let nodes), .alternation(let nodes):
            return nodes.contains { holdsReferencedCapture($0) }
        case .group(_, let body), .modifiers(_, _, let body), .lookahead(_, let body), .lookbehind(_, let body),
            .quantified(let body, _, _, _):
            return holdsReferencedCapture(body)
        case .empty, .character, .dot, .lineStart, .lineEnd, .wordBoundary, .classEscape, .characterClass,
            .backreference, .namedBackreference:
            return false
        }
    }

    /// `(?:\g1|\g2|(?!\m1)(?!\m2))`: the text of whichever group matched, or the empty string when none has.
    /// ICU reads every digit after a backslash as the group number; the `|` or `)` that follows ends it.
    private mutating func emitBackreference(to groups: [Int]) {
        let numbers = groups.compactMap { icuGroups[$0] }
        output += "(?:"
        for numbers in numbers {
            output += "\\\(numbers.group)|"
        }
        for numbers in numbers {
            output += "(?!\\\(numbers.marker))"
        }
        output += ")"
    }

    /// Whether `node` can match the empty string (assertions and backreferences can).
    private static func canMatchEmpty(_ node: ECMARegexNode) -> Bool {
        switch node {
        case .empty, .lineStart, .lineEnd, .wordBoundary, .lookahead, .lookbehind, .backreference, .namedBackreference:
            return true
        case .character, .dot, .classEscape, .characterClass:
            return false
        case .sequence(let terms):
            return terms.allSatisfy(canMatchEmpty)
        case .alternation(let alternatives):
            return alternatives.contains(where: canMatchEmpty)
        case .group(_, let body), .modifiers(_, _, let body):
            return canMatchEmpty(body)
        case .quantified(let body, let min, _, _):
            return min == 0 || canMatchEmpty(body)
        }
    }

    /// ICU quantifier text for `{min,max}`.
    private mutating func quantifier(min: Int, max: Int?, nullableBody: Bool, inLookbehind: Bool) throws(Unsupported)
        -> String
    {
        let limit = Self.icuCountLimit
        guard min <= limit else {
            throw Unsupported(
                message: "the quantifier minimum \(min == Int.max ? "written" : String(min)) exceeds \(limit), "
                    + "the largest count ICU accepts")
        }
        var max = max
        if let bound = max,
            bound > limit || (nullableBody && !inLookbehind && bound - min > Self.nullableRepetitionLimit)
        {
            // Beyond `min`, a repetition that matches the empty string ends the loop (ECMA-262 rejects it, ICU's
            // unbounded loop stops), so every useful one consumes a code unit: on a text of at most `bound - min`
            // code units the upper bound never binds.
            max = nil
            inputLimit = Swift.min(inputLimit, bound - min)
        }
        if max == nil && inLookbehind {
            let extra = Swift.min(
                nullableBody ? Swift.min(lookbehindBound, Self.nullableLookbehindBound) : lookbehindBound, limit - min)
            boundsLookbehind = true
            inputLimit = Swift.min(inputLimit, extra)
            max = min + extra
        }
        if inLookbehind, let max {
            // ICU rejects `??` and `*?` in a lookbehind; the brace form is accepted lazy or greedy.
            return "{\(min),\(max)}"
        }
        switch (min, max) {
        case (0, nil): return "*"
        case (1, nil): return "+"
        case (0, 1): return "?"
        case (_, nil): return "{\(min),}"
        case (_, let max?) where max == min: return "{\(min)}"
        case (_, let max?): return "{\(min),\(max)}"
        }
    }

    // MARK: Sets

    /// ECMA-262's word characters as set members: `[A-Za-z0-9_]`, and under `i` also U+017F and U+212A, which
    /// simple case folding maps into it.
    private static func wordMembers(_ flags: ECMARegexFlags) -> String {
        flags.contains(.ignoreCase) ? #"0-9A-Za-z_\x{17F}\x{212A}"# : "0-9A-Za-z_"
    }

    /// ECMA-262's WhiteSpace and LineTerminator code points as set members.
    private static let spaceMembers = #"\x{9}-\x{D}\x{20}\x{A0}\x{FEFF}\x{2028}\x{2029}\p{gc=Zs}"#

    /// Set members for a class escape, usable inside `[…]` or as a whole set's contents.
    private mutating func classEscapeMembers(_ escape: ECMARegexClassEscape, flags: ECMARegexFlags) throws(Unsupported)
        -> String
    {
        let all = Self.anyCodePoint
        switch (escape.kind, escape.negated) {
        case (.digit, false): return "0-9"
        case (.digit, true): return #"\x{0}-\x{2F}\x{3A}-\x{10FFFF}"#
        case (.word, false): return Self.wordMembers(flags)
        case (.word, true): return "[\(all)-[\(Self.wordMembers(flags))]]"
        case (.space, false): return Self.spaceMembers
        case (.space, true): return "[\(all)-[\(Self.spaceMembers)]]"
        case (.property(let property), false):
            properties.insert(property)
            return property.icuOperand
        case (.property(let property), true):
            properties.insert(property)
            guard !flags.contains(.ignoreCase) else {
                throw Unsupported(
                    message: "\\P{…} under the i modifier: ICU complements the property's case closure, where "
                        + "ECMA-262 takes the case closure of its complement ([^\\p{…}] is accepted and means the former)"
                )
            }
            return property.icuComplementOperand
        }
    }

    /// A code point outside a set: ASCII letters and digits as themselves, anything else as `\x{…}`.
    private static func literal(_ value: UInt32) -> String {
        switch value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: String(UnicodeScalar(UInt8(value)))
        default: setMember(value)
        }
    }

    /// A code point inside a set.
    private static func setMember(_ value: UInt32) -> String {
        #"\x{\#(String(value, radix: 16, uppercase: true))}"#
    }
}
