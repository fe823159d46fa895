import Foundation
import HTTPFixtures

/// Replaces `${VAR}` and `${VAR:-default}` in config text from the environment, line by line, so line
/// numbers in later errors still match the file. `$${` stands for a literal `${`. Comments are left
/// alone: whole comment lines, and a trailing comment (a `#` after a blank, outside quotes), except in
/// the lines of a block scalar (`|` or `>`), where a `#` is text.
enum EnvironmentSubstitution {
    static func apply(to text: String, environment: [String: String], file: String) throws(InputError)
        -> String
    {
        var substituted: [String: String] = [:]
        return try apply(to: text, environment: environment, file: file, substituted: &substituted)
    }

    /// Replaces the variables as ``apply(to:environment:file:)`` does, and gathers each value taken from the
    /// environment (defaults are written in the file, so they are not secrets), keyed by value: `"s3cr3t": "TOKEN"`.
    static func apply(
        to text: String, environment: [String: String], file: String, substituted: inout [String: String]
    ) throws(InputError) -> String {
        guard text.contains("${") else { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var lineNumber = 0
        /// The indentation of the line that opened the block scalar the lines are in, if any.
        var blockParent: Int?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            if lineNumber > 1 { output += "\n" }
            let content = line.drop(while: { $0 == " " || $0 == "\t" })
            let indentation = line.count - content.count
            if let parent = blockParent, content.isEmpty || indentation > parent {
                output += try substitute(
                    line, inBlockScalar: true, lineNumber: lineNumber, environment: environment, file: file,
                    substituted: &substituted)
                continue
            }
            blockParent = nil
            if opensBlockScalar(content) { blockParent = indentation }
            if content.hasPrefix("#") || !line.contains("$") {
                output += line
                continue
            }
            output += try substitute(
                line, inBlockScalar: false, lineNumber: lineNumber, environment: environment, file: file,
                substituted: &substituted)
        }
        return output
    }

    /// Whether a line ends (before any comment) with a block scalar indicator: `key: |`, `- >-`, `|2`.
    static func opensBlockScalar(_ content: Substring) -> Bool {
        var text = content
        if let comment = text.range(of: " #") { text = text[..<comment.lowerBound] }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard let last = words.last, let first = last.first, first == "|" || first == ">" else { return false }
        return last.dropFirst().allSatisfy { $0 == "+" || $0 == "-" || $0.isNumber } && last.count <= 3
            && (words.count == 1 || words[words.count - 2].hasSuffix(":") || words[words.count - 2] == "-")
    }

    private static func substitute(
        _ line: Substring, inBlockScalar: Bool, lineNumber: Int, environment: [String: String], file: String,
        substituted: inout [String: String]
    ) throws(InputError) -> String {
        var result = ""
        var index = line.startIndex
        /// The quote that opened the quoted scalar the scan is in (`'` or `"`), if any.
        var quote: Character?
        var previous: Character = " "
        while index < line.endIndex {
            let character = line[index]
            let rest = line[index...]
            if !inBlockScalar {
                if let open = quote {
                    if character == "\\" && open == "\"", line.index(after: index) < line.endIndex {
                        // An escaped character in a double-quoted scalar: copy both.
                        result.append(character)
                        index = line.index(after: index)
                        result.append(line[index])
                        previous = line[index]
                        index = line.index(after: index)
                        continue
                    }
                    if character == open {
                        let next = line.index(after: index)
                        if open == "'", next < line.endIndex, line[next] == "'" {
                            // '' is a quote inside a single-quoted scalar.
                            result += "''"
                            previous = "'"
                            index = line.index(after: next)
                            continue
                        }
                        quote = nil
                    }
                } else if character == "#" && (previous == " " || previous == "\t") {
                    result += rest  // a trailing comment, left as written
                    break
                } else if (character == "\"" || character == "'")
                    && (previous == " " || previous == "\t" || previous == ":" || previous == "[" || previous == "{"
                        || previous == ",")
                {
                    quote = character
                }
            }
            previous = character
            if rest.hasPrefix("$${") {
                result += "${"
                index = line.index(index, offsetBy: 3)
                continue
            }
            guard character == "$", rest.hasPrefix("${") else {
                result.append(character)
                index = line.index(after: index)
                continue
            }
            let column = line.distance(from: line.startIndex, to: index) + 1
            let inner = line[line.index(index, offsetBy: 2)...]
            guard let close = inner.firstIndex(of: "}") else {
                throw InputError(
                    file: file, position: .lineColumn(line: lineNumber, column: column), key: "${…}",
                    expected: "a closing } after ${", found: "\"\(String(rest))\"")
            }
            let expression = inner[inner.startIndex..<close]
            let name: Substring
            let fallback: Substring?
            if let range = expression.range(of: ":-") {
                name = expression[expression.startIndex..<range.lowerBound]
                fallback = expression[range.upperBound...]
            } else {
                name = expression
                fallback = nil
            }
            guard isVariableName(name) else {
                throw InputError(
                    file: file, position: .lineColumn(line: lineNumber, column: column), key: "${\(expression)}",
                    expected: "a variable name of letters, digits and _ (${NAME} or ${NAME:-default})",
                    found: "\"\(name)\"")
            }
            if let value = environment[String(name)] {
                result += value
                substituted[value] = String(name)
            } else if let fallback {
                result += fallback
            } else {
                throw InputError(
                    file: file, position: .lineColumn(line: lineNumber, column: column), key: "${\(name)}",
                    expected: "the environment variable \(name) to be set (or a default: ${\(name):-value})",
                    found: "it unset")
            }
            index = line.index(after: close)
        }
        return result
    }

    private static func isVariableName(_ name: Substring) -> Bool {
        guard let first = name.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
        return name.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
    }
}
