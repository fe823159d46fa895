import Foundation

/// An ECMA-262 regular expression (JSON Schema `pattern`), compiled once, matched many times.
///
/// JSON Schema says `pattern` and `patternProperties` follow ECMA-262 with the `u` flag: matching works on code
/// points, `\d \w \b` are ASCII-only, `.` excludes the four line terminators, `$` matches only at the very end and
/// `\p{…}` names Unicode properties. The pattern is parsed by ECMA-262's grammar (ECMAScript 2025, including
/// lookbehind, named groups, duplicate names in different alternatives and `(?ims-ims:…)` modifier groups) and
/// translated into an equivalent ICU pattern for `NSRegularExpression`; a regular pattern is also compiled to an
/// automaton of its own, which answers it without ICU (see ``matches(_:timeLimit:)``).
///
/// Where ICU cannot follow ECMA-262 exactly:
/// - Under the `i` modifier ICU closes sets over case with its own case data, which can differ from ECMA-262's
///   simple case folding for a few characters, and compares backreferences with full case folding.
/// - ICU keeps a group's capture from an earlier repetition of an enclosing quantifier where ECMA-262 resets it
///   (`^(?:(a)|b)+\1$` matches "ab" in ECMA-262, not here), and matches lookbehinds left to right where ECMA-262
///   matches right to left; both matter only to a later backreference to such a group. Inside a positive
///   lookaround holding a capture that a backreference reads, lazy quantifiers stay lazy, and ICU's lazy loops
///   mishandle bodies that can match the empty string.
/// - Rejected when compiling, as ``ECMARegexError/Reason/unsupported(_:)``: `\P{…}` under the `i` modifier (ICU
///   complements a property's case closure; ECMA-262 closes its complement over case), a backreference inside a
///   lookbehind, a quantifier minimum above 16,777,215 and a Unicode property the ICU library does not know.
///
/// Two values are equal when their patterns are.
package struct ECMARegex: Sendable, Hashable {
    /// The pattern as written in the schema.
    package let pattern: String
    private let compiled: ECMARegexCompiledPattern

    /// Compiles `pattern`; throws when it is not a valid ECMA-262 pattern (with the `u` flag semantics JSON Schema
    /// 2020-12 asks for), naming what is wrong and where, or when it is valid but beyond what the ICU engine runs.
    ///
    /// With `annexB`, the pattern is read by the syntax of ECMA-262's Annex B (a pattern without the `u` flag, as
    /// browsers and Python's `jsonschema` read the patterns of real descriptions: a lone `]`, `\x` without digits,
    /// any character escaped). It still matches by code point, as with the `u` flag (Annex B proper matches UTF-16
    /// code units: the two differ only for characters above U+FFFF).
    package init(_ pattern: String, annexB: Bool = false) throws(ECMARegexError) {
        self.pattern = pattern
        let tree: ECMARegexSyntaxTree
        do {
            tree = try ECMARegexParser.parse(pattern, annexB: annexB)
        } catch {
            throw ECMARegexError(
                pattern: pattern,
                reason: error.isNestingLimit
                    ? .unsupported(error.message) : .syntax(offset: error.offset, message: error.message))
        }
        do {
            compiled = try ECMARegexCompiledPattern.compile(tree)
        } catch {
            throw ECMARegexError(pattern: pattern, reason: .unsupported(error.message))
        }
    }

    /// Whether the pattern matches anywhere in `text` (patterns are not anchored).
    ///
    /// A regular pattern (without lookarounds, backreferences, modifier groups or Unicode properties) is searched
    /// by this type's own automaton (`ECMARegexAutomaton`): the same answer as ICU's, in at most the program's size
    /// times the text's length steps, so `^(a+)+$` on "aaaa…ab" is answered at once and no limit below applies.
    /// The other patterns, and a text too long for the automaton's bitmap, are matched by ICU:
    ///
    /// Throws `.timeLimit` when one match runs longer than `timeLimit` (a pathological pattern such as
    /// `^(?=(a+)+$)` on "aaaa…ab"): never a hang.
    ///
    /// What bounds the time: the match runs with `NSRegularExpression.MatchingOptions.reportProgress`, under which
    /// ICU calls back after every 10,000 backtracking states it saves and at every start position it tries. Every
    /// eighth call reads the clock and, once `timeLimit` has passed since the call began, stops ICU, which then
    /// returns at once. So the match stops at most eight callback intervals (80,000 saved states, about a
    /// millisecond on current hardware) after the limit. Not bounded by the limit: converting `text` to UTF-16
    /// before matching starts, which is linear in its length. The backtracking memory is bounded by ICU's
    /// 8 MB stack limit, whose overflow throws ``ECMARegexError/Reason/engineLimit(_:)``.
    ///
    /// The work is bounded as well: the same callbacks, less one per start position, count the states saved, and
    /// past ``backtrackingLimit`` the match stops with ``ECMARegexError/Reason/backtrackingLimit(_:)``, whatever
    /// the time. This is not a choice but a guard: the ICU library Foundation uses on Linux (swift-foundation-icu,
    /// ICU 76) abandons a search that saves some 37 million states from one start position and reports "no match"
    /// without an error, which would be a wrong answer (`^(?:(a+))+c\1$` on 25 a's, c, 24 a's matches in ECMA-262
    /// and not in that ICU).
    ///
    /// Also throws `.engineLimit` when `text` is longer than a bound the translation gave a quantifier (above
    /// 16,777,215 repetitions, or unbounded inside a lookbehind) and the answer could therefore differ from
    /// ECMA-262's. A match found before a limit is reached is reported.
    package func matches(_ text: String, timeLimit: Duration = .seconds(1)) throws(ECMARegexError) -> Bool {
        let length = try checkedLength(of: text)
        // A regular pattern (no lookaround, backreference, modifier group or property) is searched by the
        // automaton, exactly and in bounded time; ICU for the rest, or a text too long for the automaton's bitmap.
        if let automaton = compiled.automaton, let found = automaton.matches(text) {
            return found
        }
        return try icuMatches(text, length: length, timeLimit: timeLimit)
    }

    /// The match by ICU whatever the pattern, under the limits ``matches(_:timeLimit:)`` describes: the engine
    /// `matches` uses for what its automaton cannot answer (tests and SchemaBenchmark compare the two).
    package func matchesWithICU(_ text: String, timeLimit: Duration = .seconds(1)) throws(ECMARegexError) -> Bool {
        try icuMatches(text, length: try checkedLength(of: text), timeLimit: timeLimit)
    }

    /// The text's UTF-16 length, when the translation is exact for it.
    private func checkedLength(of text: String) throws(ECMARegexError) -> Int {
        let length = text.utf16.count
        guard length <= compiled.inputLimit else {
            throw ECMARegexError(
                pattern: pattern,
                reason: .engineLimit(
                    "the text has \(length) UTF-16 code units, more than the \(compiled.inputLimit) up to which the "
                        + "ICU translation of a bounded quantifier is exact"))
        }
        return length
    }

    private func icuMatches(_ text: String, length: Int, timeLimit: Duration) throws(ECMARegexError) -> Bool {
        let state = ECMARegexMatchState(
            deadline: ContinuousClock.now.advanced(by: timeLimit),
            progressAllowance: length + 1 + Self.backtrackingLimit / 10_000)
        compiled.regex.enumerateMatches(
            in: text, options: [.reportProgress, .reportCompletion], range: NSRange(location: 0, length: length)
        ) { result, flags, stop in
            state.observe(found: result != nil, flags: flags, stop: stop)
        }
        if state.found { return true }
        if state.timedOut { throw ECMARegexError(pattern: pattern, reason: .timeLimit(timeLimit)) }
        if state.exceededBacktracking {
            throw ECMARegexError(pattern: pattern, reason: .backtrackingLimit(Self.backtrackingLimit))
        }
        if state.engineFailed {
            throw ECMARegexError(
                pattern: pattern,
                reason: .engineLimit("ICU stopped with an error (most likely its 8 MB backtracking stack overflowed)"))
        }
        return false
    }

    /// How many backtracking states one `matches` call may save (see ``matches(_:timeLimit:)``): below the point
    /// where ICU gives up silently.
    static let backtrackingLimit = 30_000_000

    /// Whether ``matches(_:timeLimit:)`` searches with its own automaton rather than ICU.
    package var searchesByAutomaton: Bool { compiled.automaton != nil }

    /// The ICU pattern the ECMA-262 pattern was translated to, for diagnostics.
    var translatedPattern: String { compiled.icuPattern }

    package static func == (left: ECMARegex, right: ECMARegex) -> Bool {
        left.pattern == right.pattern
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(pattern)
    }
}

/// Why a pattern could not be compiled or matched.
package struct ECMARegexError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    package enum Reason: Sendable, Hashable {
        /// The pattern is not valid ECMA-262 (with the `u` flag). `offset` counts Unicode scalars from the start of
        /// the pattern, from 0.
        case syntax(offset: Int, message: String)
        /// The pattern is valid ECMA-262, but the ICU engine cannot run it as ECMA-262 means it (see ``ECMARegex``).
        case unsupported(String)
        /// One match ran longer than this limit.
        case timeLimit(Duration)
        /// One match saved more backtracking states than this (``ECMARegex/backtrackingLimit``).
        case backtrackingLimit(Int)
        /// The engine stopped with an error (its backtracking stack overflowed), or the text is longer than the
        /// translation is exact for.
        case engineLimit(String)
    }

    /// The pattern as written in the schema.
    let pattern: String
    /// What went wrong.
    let reason: Reason

    init(pattern: String, reason: Reason) {
        self.pattern = pattern
        self.reason = reason
    }

    /// A sentence a person reads, quoting the pattern (shortened past 100 characters).
    package var description: String {
        let quoted = "\"\(pattern.count > 100 ? pattern.prefix(100) + "…" : Substring(pattern))\""
        switch reason {
        case .syntax(let offset, let message):
            return "invalid ECMA-262 regular expression \(quoted): \(message) (at offset \(offset))"
        case .unsupported(let message):
            return "the regular expression \(quoted) is valid ECMA-262 but cannot be matched here: \(message)"
        case .timeLimit(let limit):
            return
                "matching the regular expression \(quoted) took longer than the limit of \(Self.describe(limit)); the "
                + "pattern backtracks too much on this text (nested quantifiers such as (a+)+ do)"
        case .backtrackingLimit(let states):
            return
                "matching the regular expression \(quoted) needed more than \(states) backtracking steps; the pattern "
                + "backtracks too much on this text (nested quantifiers such as (a+)+ do)"
        case .engineLimit(let message):
            return "matching the regular expression \(quoted) failed: \(message)"
        }
    }

    private static func describe(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        if milliseconds >= 1000 {
            let value = milliseconds / 1000
            return value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
        }
        return milliseconds == milliseconds.rounded() ? "\(Int(milliseconds)) ms" : "\(milliseconds) ms"
    }
}

/// Syntax only, for the `format: "regex"` assertion.
package enum ECMARegexSyntax {
    /// Whether `pattern` is a valid ECMA-262 pattern with the `u` flag (ECMAScript 2025). Checks syntax and the
    /// grammar's static rules (backreferences to existing groups, group names, quantifier and range order) without
    /// compiling. Also false for patterns whose groups nest deeper than 256 levels, which ``ECMARegex`` rejects.
    package static func isValid(_ pattern: String) -> Bool {
        (try? ECMARegexParser.parse(pattern)) != nil
    }
}

/// The compiled form of an ``ECMARegex``.
///
/// `@unchecked Sendable` because the compiler cannot see that sharing it is safe on every platform: its
/// properties are constants, and `NSRegularExpression` is immutable after initialization and documented as safe to
/// use from several threads at once (swift-corelibs-foundation gives each concurrent match its own ICU matcher:
/// it checks the shared one out with an atomic compare-and-swap and clones it when another thread holds it). On
/// Linux `NSRegularExpression` is itself declared `@unchecked Sendable`; this box does not rely on that.
private final class ECMARegexCompiledPattern: @unchecked Sendable {
    let regex: NSRegularExpression
    let icuPattern: String
    /// The longest text (UTF-16 code units) for which the translation is exact.
    let inputLimit: Int
    /// The pattern's own search, when it is a regular one (``ECMARegexAutomaton``).
    let automaton: ECMARegexAutomaton?

    private init(regex: NSRegularExpression, icuPattern: String, inputLimit: Int, automaton: ECMARegexAutomaton?) {
        self.regex = regex
        self.icuPattern = icuPattern
        self.inputLimit = inputLimit
        self.automaton = automaton
    }

    /// Translates and compiles `tree`. When ICU rejects a lookbehind that an unbounded quantifier made too long,
    /// searches for the largest bound it accepts.
    static func compile(_ tree: ECMARegexSyntaxTree) throws(ECMARegexTranslator.Unsupported) -> ECMARegexCompiledPattern
    {
        let limit = ECMARegexTranslator.icuCountLimit
        let first = try ECMARegexTranslator.translate(tree, lookbehindBound: limit)
        // Compiled by ICU as well when the automaton takes it: ICU judges the pattern and answers what the
        // automaton cannot (a text too long for its bitmap).
        if let compiled = make(first, automaton: ECMARegexAutomaton(tree)) { return compiled }
        guard first.boundsLookbehind else { throw diagnose(first) }
        let smallest = try ECMARegexTranslator.translate(tree, lookbehindBound: 1)
        guard var best = make(smallest) else { throw diagnose(smallest) }
        // The largest bound ICU accepts lies in 1..<limit; each step halves the range (at most 24 compilations).
        var low = 1
        var high = limit - 1
        while low < high {
            let middle = low + (high - low + 1) / 2
            if let compiled = make(try ECMARegexTranslator.translate(tree, lookbehindBound: middle)) {
                best = compiled
                low = middle
            } else {
                high = middle - 1
            }
        }
        return best
    }

    private static func make(
        _ output: ECMARegexTranslator.Output, automaton: ECMARegexAutomaton? = nil
    ) -> ECMARegexCompiledPattern? {
        guard let regex = try? NSRegularExpression(pattern: output.icuPattern) else { return nil }
        return ECMARegexCompiledPattern(
            regex: regex, icuPattern: output.icuPattern, inputLimit: output.inputLimit, automaton: automaton)
    }

    /// Why ICU rejected a translation: a property it does not know, a lookbehind too long, or else the pattern.
    private static func diagnose(_ output: ECMARegexTranslator.Output) -> ECMARegexTranslator.Unsupported {
        for property in output.properties.sorted(by: { $0.canonicalText < $1.canonicalText })
        where (try? NSRegularExpression(pattern: "[\(property.icuOperand)]")) == nil {
            return .init(
                message: "ICU does not know the Unicode property \(property.canonicalText) (it is newer than the "
                    + "Unicode version of the ICU library Foundation uses)")
        }
        if output.icuPattern.contains("(?<=") || output.icuPattern.contains("(?<!") {
            return .init(
                message: "ICU rejected the translated pattern, most likely because a lookbehind can match more "
                    + "than \(ECMARegexTranslator.icuCountLimit) UTF-16 code units; ICU pattern: \(output.icuPattern)")
        }
        return .init(message: "ICU rejected the translated pattern \(output.icuPattern)")
    }
}

/// What one `matches` call observed from ICU's callbacks.
private final class ECMARegexMatchState {
    let deadline: ContinuousClock.Instant
    private(set) var found = false
    private(set) var timedOut = false
    private(set) var engineFailed = false
    private(set) var exceededBacktracking = false
    /// How many progress reports may arrive: one per start position, and one per 10,000 saved states up to the
    /// backtracking limit.
    private let progressAllowance: Int
    private var progressReports = 0

    init(deadline: ContinuousClock.Instant, progressAllowance: Int) {
        self.deadline = deadline
        self.progressAllowance = progressAllowance
    }

    /// Handles one call of the enumeration block.
    func observe(found: Bool, flags: NSRegularExpression.MatchingFlags, stop: UnsafeMutablePointer<ObjCBool>) {
        if found {
            self.found = true
            stop.pointee = true
        } else if flags.contains(.completed) {
            engineFailed = flags.contains(.internalError)
        } else if flags.contains(.progress) {
            // Reading the clock costs about as much as the callback itself; every eighth report is often enough.
            progressReports += 1
            if progressReports > progressAllowance {
                exceededBacktracking = true
                stop.pointee = true
            } else if progressReports & 7 == 0, ContinuousClock.now >= deadline {
                timedOut = true
                stop.pointee = true
            }
        }
    }
}

extension ECMARegexError: ExitStatusReporting {
    /// A pattern the user wrote (a schema's, a fixture's) that is not one: status 2.
    package var exitStatus: ExitStatus { .badInput }
}
