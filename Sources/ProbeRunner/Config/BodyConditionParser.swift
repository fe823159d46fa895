import APIProbeShared
import Foundation
import HTTPFixtures

/// Reads a body condition as written in a config: `POINTER OPERATOR [OPERAND]`.
///
/// `/count > 0`, `/recipes length >= 1`, `/recipes/0/title exists`, `/error not-exists`,
/// `/recipes/0/recipe_id matches ^[0-9a-f]+$`, `/recipes/0/publisher == "Closet Cooking"`. The pointer is a
/// JSON Pointer (`(root)` for the whole body) in which a `*` segment stands for every item of an array
/// (`/recipes/*/title exists`: every recipe has a title); the operand of `==` and `!=` is JSON, or
/// a bare word read as a string; ordering operators take a number.
enum BodyConditionParser {
    struct Failure: Error {
        var expected: String
    }

    static let grammar =
        "a condition like /count > 0 (operators ==, !=, <, <=, >, >=, exists, not-exists, matches REGEX, length OP N), text contains \"…\", text matches REGEX, or size < 100KB"

    static func parse(_ text: String) throws(Failure) -> BodyCondition {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let space = trimmed.firstIndex(of: " ") else { throw Failure(expected: grammar) }
        switch trimmed[..<space] {
        case "text": return try parseText(trimmed, after: space)
        case "size": return try parseSize(trimmed, after: space)
        default: break
        }
        var pointer = String(trimmed[..<space])
        if pointer == "(root)" || pointer == "\"\"" { pointer = "" }
        guard pointer.isEmpty || pointer.hasPrefix("/") else {
            throw Failure(expected: "a JSON Pointer starting with / (or (root)), then an operator")
        }
        guard JSONPointer.tokens(of: pointer) != nil else {
            throw Failure(expected: "a JSON Pointer whose ~ escapes are ~0 (for ~) or ~1 (for /)")
        }
        let rest = trimmed[space...].trimmingCharacters(in: .whitespaces)
        let opEnd = rest.firstIndex(of: " ") ?? rest.endIndex
        let opText = String(rest[..<opEnd])
        let operandText = rest[opEnd...].trimmingCharacters(in: .whitespaces)
        guard let op = BodyCondition.Operator(rawValue: opText) else { throw Failure(expected: grammar) }
        switch op {
        case .contains, .notContains:
            throw Failure(
                expected: "text before \(op.rawValue) (text \(op.rawValue) \"…\"): it looks at the body as text")
        case .exists, .notExists:
            guard operandText.isEmpty else { throw Failure(expected: "nothing after \(op.rawValue)") }
            return BodyCondition(pointer: pointer, op: op, source: trimmed)
        case .matches:
            // Quotes mean what they mean for ==: a JSON string, whose quotes are not part of the pattern.
            let pattern: String
            if operandText.hasPrefix("\"") {
                guard case .string(let text) = try jsonOperand(operandText, after: op) else {
                    throw Failure(expected: "a regular expression after matches, bare or as one JSON string")
                }
                pattern = text
            } else {
                pattern = operandText
            }
            guard !pattern.isEmpty, (try? NSRegularExpression(pattern: pattern)) != nil else {
                throw Failure(expected: "a valid regular expression after matches")
            }
            return BodyCondition(pointer: pointer, op: op, operand: .string(pattern), source: trimmed)
        case .length:
            let parts = operandText.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, let lengthOp = BodyCondition.Operator(rawValue: String(parts[0])),
                [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(lengthOp),
                let count = Int(parts[1]), count >= 0
            else { throw Failure(expected: "length, a comparison and a whole number: /items length >= 1") }
            return BodyCondition(
                pointer: pointer, op: .length, operand: .number(String(count)), lengthOperator: lengthOp,
                source: trimmed)
        case .equal, .notEqual:
            guard !operandText.isEmpty else { throw Failure(expected: "a value after \(op.rawValue)") }
            let operand = try jsonOperand(operandText, after: op)
            return BodyCondition(pointer: pointer, op: op, operand: operand, source: trimmed)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let value = try? JSONValue(parsing: Data(operandText.utf8)), case .number = value else {
                throw Failure(expected: "a number after \(op.rawValue)")
            }
            return BodyCondition(pointer: pointer, op: op, operand: value, source: trimmed)
        }
    }

    /// `text contains "…"`, `text not-contains "…"`, `text matches REGEX`: on the body as UTF-8 text.
    private static func parseText(_ trimmed: String, after space: String.Index) throws(Failure) -> BodyCondition {
        let rest = trimmed[space...].trimmingCharacters(in: .whitespaces)
        let opEnd = rest.firstIndex(of: " ") ?? rest.endIndex
        let operandText = rest[opEnd...].trimmingCharacters(in: .whitespaces)
        guard let op = BodyCondition.Operator(rawValue: String(rest[..<opEnd])),
            [.contains, .notContains, .matches].contains(op), !operandText.isEmpty
        else { throw Failure(expected: "text contains \"…\", text not-contains \"…\" or text matches REGEX") }
        let operand: String
        if operandText.hasPrefix("\"") {
            guard case .string(let value) = try jsonOperand(operandText, after: op) else {
                throw Failure(expected: "a text after \(op.rawValue), bare or as one JSON string")
            }
            operand = value
        } else {
            operand = operandText
        }
        if op == .matches, (try? NSRegularExpression(pattern: operand)) == nil || operand.isEmpty {
            throw Failure(expected: "a valid regular expression after matches")
        }
        var condition = BodyCondition(pointer: "", op: op, operand: .string(operand), source: trimmed)
        condition.subject = .text
        return condition
    }

    /// `size < 100KB`: the body's size in bytes against a size (`512`, `64KB`, `1MiB`).
    private static func parseSize(_ trimmed: String, after space: String.Index) throws(Failure) -> BodyCondition {
        let parts = trimmed[space...].split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 2, let op = BodyCondition.Operator(rawValue: String(parts[0])),
            [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(op),
            let bytes = ConfigReader.parseSize(String(parts[1]))
        else { throw Failure(expected: "size, a comparison and a size: size < 100KB") }
        var condition = BodyCondition(pointer: "", op: op, operand: .number(String(bytes)), source: trimmed)
        condition.subject = .size
        return condition
    }

    /// An operand: JSON, or a bare word read as a string. Text that opens a JSON string, array or object
    /// (`"`, `[`, `{`) must be that JSON: a malformed one is an error, not a string.
    private static func jsonOperand(_ text: String, after op: BodyCondition.Operator) throws(Failure) -> JSONValue {
        do {
            return try JSONValue(parsing: Data(text.utf8))
        } catch {
            guard let first = text.first, first == "\"" || first == "[" || first == "{" else { return .string(text) }
            throw Failure(
                expected:
                    "JSON after \(op.rawValue) (\(error.expected) at column \(error.position.column ?? 1) of the operand, found \(error.found))"
            )
        }
    }
}
