import Foundation

/// What libyaml (through Yams) says about text it cannot read, in the words of our messages: the `found` of
/// "expected valid YAML or JSON, found …". libyaml's own words start with their verb (`found character that cannot
/// start any token`, `did not find expected key`), so put after our "found" they read "found found character"
/// (issue 37). The config reader and the OpenAPI reader both call this, so the two say it alike.
package enum YAMLProblemText {
    /// `problem` (libyaml's) as a noun phrase, with the character at the place when there is one, and libyaml's
    /// context (`while parsing a block mapping`) after it: `a character that cannot start any token ("@"), while
    /// scanning for the next token`.
    package static func found(problem: String, context: String? = nil, character: Character? = nil) -> String {
        var text = problem.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("found ") {
            text = String(text.dropFirst("found ".count))
            // "found character …" → "a character …"; "found unexpected end of stream" → "an unexpected end of stream".
            if !text.hasPrefix("a ") && !text.hasPrefix("an ") && !text.hasPrefix("the ") {
                text = (text.first.map { "aeiou".contains($0) } == true ? "an " : "a ") + text
            }
        } else if text.hasPrefix("did not find expected ") {
            text = "no " + text.dropFirst("did not find expected ".count) + " where one was expected"
        } else if text.hasPrefix("could not find expected ") {
            text = "no " + text.dropFirst("could not find expected ".count) + " where one was expected"
        }
        if let character, !character.isNewline {
            text += " (\"" + String(character) + "\")"
        }
        if let context = context?.trimmingCharacters(in: .whitespacesAndNewlines), !context.isEmpty {
            text += ", " + context
        }
        return text
    }

    /// The character at 1-based `line` and `column` of `text`, when there is one.
    package static func character(in text: String, line: Int, column: Int) -> Character? {
        guard line >= 1, column >= 1 else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard line <= lines.count else { return nil }
        let row = lines[line - 1]
        guard column <= row.count else { return nil }
        return row[row.index(row.startIndex, offsetBy: column - 1)]
    }
}
