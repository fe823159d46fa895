import Foundation
import Testing

@testable import APIProbeShared

/// ``ECMARegex`` searches a regular pattern with its own automaton: the same answers as ICU's, for any pattern of
/// the constructs it takes, in a time bounded by the pattern's size times the text's length.
struct ECMARegexAutomatonTests {
    /// Random patterns of every construct the automaton takes, each on random texts: its answer and ICU's, side by
    /// side (ICU through the same ECMA-262 translation as before, the oracle here).
    @Test func randomPatternsMatchAsICUMatchesThem() throws {
        var random = SeededGenerator(seed: SeededGenerator.seed())
        var compared = 0
        var matched = 0
        for _ in 0..<400 {
            let pattern = Self.pattern(depth: 3, using: &random)
            let regex: ECMARegex
            do {
                regex = try ECMARegex(pattern)
            } catch {
                continue  // a quantifier on an assertion, say: not a pattern, in either engine
            }
            #expect(regex.searchesByAutomaton, "\(pattern) is regular, yet left to ICU")
            for _ in 0..<12 {
                let text = Self.text(using: &random)
                let ours = try regex.matches(text)
                let icu = try regex.matchesWithICU(text)
                #expect(ours == icu, "\(pattern) on \(text.debugDescription): automaton \(ours), ICU \(icu)")
                compared += 1
                if icu { matched += 1 }
            }
        }
        // Both answers occur often enough for the comparison to say something (seed: APIPROBE_SEED).
        #expect(compared > 3_000)
        #expect(matched > compared / 5 && matched < compared * 4 / 5, "\(matched) of \(compared) matched")
    }

    /// What backtracks without end in ICU is answered at once: `^(a+)+$` on 40 `a` and a `b`.
    @Test func nestedQuantifiersAreAnsweredWithoutBacktracking() throws {
        let regex = try ECMARegex("^(a+)+$")
        #expect(regex.searchesByAutomaton)
        let started = ContinuousClock.now
        #expect(try !regex.matches(String(repeating: "a", count: 40) + "b", timeLimit: .milliseconds(50)))
        #expect(try regex.matches(String(repeating: "a", count: 40), timeLimit: .milliseconds(50)))
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    /// Lookarounds, backreferences, modifier groups and properties keep ICU; so does a counted quantifier that would
    /// write out too large a program.
    @Test(arguments: [#"a(?=b)"#, #"(?<=a)b"#, #"(a)\1"#, #"(?<n>a)\k<n>"#, #"(?i:a)"#, #"\p{L}"#, #"a{5000}"#])
    func whatIsNotRegularKeepsICU(_ pattern: String) throws {
        #expect(try !ECMARegex(pattern).searchesByAutomaton)
    }

    /// A text too long for the automaton's bitmap (instructions × positions) is matched by ICU, with the same
    /// answer.
    @Test func aVeryLongTextIsLeftToICU() throws {
        let regex = try ECMARegex("y{300}$")
        #expect(regex.searchesByAutomaton)
        let length = ECMARegexAutomaton.maximumStates / 300 + 1_000
        #expect(try regex.matches(String(repeating: "y", count: length)))
        #expect(try !regex.matches(String(repeating: "y", count: length) + "z"))
    }

    private static let atoms = [
        "a", "b", "ab", ".", #"\d"#, #"\D"#, #"\w"#, #"\W"#, #"\s"#, #"\S"#, "[a-c]", "[^a]", #"[\d_]"#, #"[^\W]"#,
        #"[\s\d]"#, "[^]", "[]", "é", "😀", #"\."#, #"\u{1F600}"#, #"\n"#, "[é-ü]",
    ]
    private static let assertions = ["^", "$", #"\b"#, #"\B"#]
    private static let quantifiers = ["*", "+", "?", "{0,2}", "{2}", "{1,}", "*?", "+?", "??", "{1,3}?"]

    /// A pattern of the automaton's constructs, `depth` levels of groups deep at most.
    static func pattern(depth: Int, using random: inout SeededGenerator) -> String {
        var parts: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let roll = Int.random(in: 0..<10, using: &random)
            var part: String
            if roll < 5 || depth == 0 {
                part = atoms.randomElement(using: &random)!
            } else if roll < 7 {
                let alternatives = (0..<Int.random(in: 2...3, using: &random)).map { _ in
                    pattern(depth: depth - 1, using: &random)
                }
                part = (Bool.random(using: &random) ? "(" : "(?:") + alternatives.joined(separator: "|") + ")"
            } else if roll < 8 {
                parts.append(assertions.randomElement(using: &random)!)
                continue
            } else {
                part = "(" + pattern(depth: depth - 1, using: &random) + ")"
            }
            if Int.random(in: 0..<3, using: &random) == 0 { part += quantifiers.randomElement(using: &random)! }
            parts.append(part)
        }
        return parts.joined()
    }

    /// A short text of characters the atoms tell apart: letters, a digit, `_`, spaces of three kinds, line
    /// terminators, a non-ASCII letter and a character beyond the BMP.
    static func text(using random: inout SeededGenerator) -> String {
        let characters: [Character] = [
            "a", "b", "c", "x", "Z", "1", "9", "_", " ", "\n", "\t", "é", "😀", "\u{A0}", "\u{2028}", ".",
        ]
        return String(
            (0..<Int.random(in: 0...7, using: &random)).map { _ in characters.randomElement(using: &random)! })
    }
}
