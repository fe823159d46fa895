import Foundation

/// Replaces `${VAR}` and `${VAR:-default}` in config text from the environment, line by line, so line
/// numbers in later errors still match the file. `$${` stands for a literal `${`. Lines whose first
/// non-blank character is `#` (comments) are left alone.
enum EnvironmentSubstitution {
    static func apply(to text: String, environment: [String: String], file: String) throws(ProbeConfigError)
        -> String
    {
        guard text.contains("${") else { return text }
        var output = ""
        output.reserveCapacity(text.utf8.count)
        var lineNumber = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            if lineNumber > 1 { output += "\n" }
            if line.drop(while: { $0 == " " || $0 == "\t" }).hasPrefix("#") || !line.contains("$") {
                output += line
                continue
            }
            output += try substitute(line, lineNumber: lineNumber, environment: environment, file: file)
        }
        return output
    }

    private static func substitute(
        _ line: Substring, lineNumber: Int, environment: [String: String], file: String
    ) throws(ProbeConfigError) -> String {
        var result = ""
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            let rest = line[index...]
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
                throw ProbeConfigError(
                    file: file, line: lineNumber, column: column, key: "${…}",
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
                throw ProbeConfigError(
                    file: file, line: lineNumber, column: column, key: "${\(expression)}",
                    expected: "a variable name of letters, digits and _ (${NAME} or ${NAME:-default})",
                    found: "\"\(name)\"")
            }
            if let value = environment[String(name)] {
                result += value
            } else if let fallback {
                result += fallback
            } else {
                throw ProbeConfigError(
                    file: file, line: lineNumber, column: column, key: "${\(name)}",
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
