import APIProbeShared
import Foundation
import HTTPFixtures
import Yams

/// Turns the composed YAML nodes of a config into a ``ProbeConfig``; every error names the file, the
/// line and column, the key path (`endpoints.search.expect.latency[0]`) and what was expected.
struct ConfigReader {
    let file: String
    /// The folder files named in the config (`tls.caFile`) are relative to; the current folder when `nil`.
    var directory: URL? = nil

    static let topKeys = [
        "api", "baseURL", "stubs", "snapshots", "concurrency", "rateLimit", "deadline", "downAfter",
        "successThreshold", "alerts", "regression", "history", "redact", "maintenance", "defaults", "endpoints",
    ]
    static let historyKeys = ["keep", "maxSize"]
    static let defaultsKeys = ["headers", "samples", "timeout", "retries", "maxBodySize", "tls", "expect"]
    static let endpointKeys = [
        "name", "method", "path", "url", "query", "headers", "body", "samples", "timeout", "retries", "maxBodySize",
        "followRedirects", "auth", "interval", "maintenance", "tls", "dns", "expect",
    ]
    static let dnsKeys = ["name", "type"]
    static let tlsKeys = ["expiresIn", "caFile", "clientCertificate", "clientKey", "insecure"]
    static let authKeys = ["basic", "bearer"]
    static let expectKeys = ["status", "headers", "body", "schema", "latency", "rcode", "answers"]
    static let regressionKeys = ["window", "factor", "minimumRuns", "minimumSlowdown"]
    static let schemaKeys = ["snapshot", "usage", "failOn"]
    static let maintenanceKeys = ["start", "duration", "every", "timezone"]

    // MARK: Errors

    func error(_ node: Node?, _ key: String, expected: String, found: String? = nil) -> InputError {
        InputError(
            file: file, position: node?.mark.map { .lineColumn(line: $0.line, column: $0.column) } ?? .file,
            key: key.isEmpty ? "(top level)" : key,
            expected: expected, found: found ?? describe(node))
    }

    func describe(_ node: Node?) -> String {
        switch node {
        case nil: return "nothing"
        case .scalar(let scalar)?:
            if scalar.style == .plain && scalar.string.isEmpty { return "an empty value" }
            return "\"\(scalar.string)\""
        case .mapping?: return "a mapping"
        case .sequence?: return "a list"
        case .alias?: return "an alias"
        }
    }

    static func syntaxError(_ error: YamlError, file: String) -> InputError {
        func make(_ mark: Mark, _ problem: String, _ context: YamlError.Context?, _ yaml: String) -> InputError {
            // The key the broken part belongs to, read from the text where the structure began (a flow list
            // opened after `status:`), so the message says where in the config, not only the line.
            let place = context?.mark ?? mark
            let key = keyPath(in: yaml, line: place.line, column: place.column).map { "\($0) (syntax)" }
            return InputError(
                file: file, position: .lineColumn(line: mark.line, column: mark.column), key: key ?? "(syntax)",
                expected: "valid YAML or JSON",
                found: YAMLProblemText.found(
                    problem: problem, context: context?.text,
                    character: YAMLProblemText.character(in: yaml, line: mark.line, column: mark.column)))
        }
        switch error {
        case .scanner(let context, let problem, let mark, let yaml): return make(mark, problem, context, yaml)
        case .parser(let context, let problem, let mark, let yaml): return make(mark, problem, context, yaml)
        case .composer(let context, let problem, let mark, let yaml): return make(mark, problem, context, yaml)
        case .reader(let problem, let offset, let value, let yaml):
            // libyaml's reader (control characters, bad encoding) gives a byte offset, not a mark.
            var line = 1
            var column = 1
            for byte in yaml.utf8.prefix(max(0, offset ?? 0)) {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
            }
            let character = value >= 0 ? String(format: " (U+%04X)", value) : ""
            return InputError(
                file: file, position: offset == nil ? .file : .lineColumn(line: line, column: column), key: "(syntax)",
                expected: "valid YAML or JSON", found: YAMLProblemText.found(problem: problem) + character)
        case .duplicatedKeysInMapping(let duplicates, let context):
            return InputError(
                file: file, position: .lineColumn(line: context.mark.line, column: context.mark.column),
                key: duplicates.joined(separator: ", "),
                expected: "each key once", found: "it more than once")
        default:
            return InputError(
                file: file, position: .file, key: "(syntax)", expected: "valid YAML or JSON", found: "\(error)")
        }
    }

    /// The dotted key path (`endpoints.search.expect.status`) of the place at `line` and `column` (1-based) in YAML
    /// text that does not parse, read from indentation: the keys before the column on its own line (a flow
    /// mapping's), then each less indented key above it; a list item is named by its `name:` when it has one
    /// (as the config's messages name endpoints), else by its index. `nil` when no key is found.
    static func keyPath(in yaml: String, line: Int, column: Int) -> String? {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard line >= 1, line <= lines.count else { return nil }
        /// The keys open at the end of `text`: a flow mapping's key and the keys of the mappings around it
        /// (`expect: {status: [200` → `expect`, `status`); a `:` counts when a blank or the end follows it, and
        /// nothing inside quotes counts.
        func keys(in text: Substring) -> [String] {
            var open: [(depth: Int, key: String)] = []
            var depth = 0
            var token = ""
            var quote: Character?
            var characters = text.makeIterator()
            var next = characters.next()
            while let character = next {
                next = characters.next()
                if let open = quote {
                    if character == open { quote = nil }
                    continue
                }
                if character.isLetter || character.isNumber || "_-.".contains(character) {
                    token.append(character)
                    continue
                }
                switch character {
                case "\"", "'": quote = character
                case ":" where !token.isEmpty && (next == nil || next == " "):
                    open.removeAll { $0.depth >= depth }
                    open.append((depth, token))
                case "{", "[": depth += 1
                case "}", "]":
                    depth -= 1
                    open.removeAll { $0.depth > depth }
                default: break
                }
                token = ""
            }
            return open.map(\.key)
        }
        func indentation(_ text: String) -> Int {
            var count = 0
            for character in text {
                if character == " " || character == "-" { count += 1 } else { break }
            }
            return count
        }
        let here = lines[line - 1]
        var path = keys(in: here.prefix(max(0, column - 1)))
        var indent = indentation(here)
        // The place is inside a list item that starts on its own line (`- {name: search, …`): named by its name.
        if here.drop(while: { $0 == " " }).hasPrefix("- "), let range = here.range(of: "name: ") {
            let name = here[range.upperBound...].prefix { $0 != "," && $0 != "}" }
                .trimmingCharacters(in: .whitespaces)
            if !name.isEmpty, path.first != "name" { path.insert(name, at: 0) }
            indent = here.count - here.drop(while: { $0 == " " }).count + 1
        }
        var itemIndex: [Int: Int] = [:]  // list items met at each indentation, walking up
        var index = line - 2
        while index >= 0, indent > 0 {
            let text = lines[index]
            let trimmed = text.drop { $0 == " " }
            index -= 1
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            let level = indentation(text)
            if trimmed.hasPrefix("- "), level <= indent {
                let at = text.count - trimmed.count
                itemIndex[at, default: 0] += 1
                // The item's own `name:`, on its first line or below it up to the place.
                if at < indent - 1 || level < indent {
                    var name: String?
                    for candidate in lines[(index + 1)..<(line - 1)] {
                        let body = candidate.drop { $0 == " " || $0 == "-" }
                        if body.hasPrefix("name:") {
                            name = body.dropFirst(5).trimmingCharacters(in: .whitespaces)
                            break
                        }
                        if let range = candidate.range(of: "{name: ") {
                            name = String(candidate[range.upperBound...].prefix { $0 != "," && $0 != "}" })
                            break
                        }
                    }
                    path.insert(name ?? "[\(itemIndex[at, default: 1] - 1)]", at: 0)
                    // The list's key may stand at the item's own column (`endpoints:` then `- name: a`).
                    indent = at + 1
                }
                continue
            }
            if level < indent, let key = keys(in: trimmed.prefix { $0 != "{" && $0 != "[" }).first {
                path.insert(key, at: 0)
                indent = level
            }
        }
        return path.isEmpty ? nil : path.joined(separator: ".")
    }

    // MARK: Shapes

    /// The members of a mapping, in order, each key checked against `allowed`.
    func members(_ node: Node, _ path: String, allowed: [String]?) throws(InputError) -> [(
        key: String, keyNode: Node, value: Node
    )] {
        guard case .mapping(let mapping) = node else {
            throw error(
                node, path, expected: allowed.map { "a mapping (\($0.joined(separator: ", ")))" } ?? "a mapping")
        }
        var seen: Set<String> = []
        var result: [(key: String, keyNode: Node, value: Node)] = []
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else {
                throw error(keyNode, path, expected: "a plain key", found: describe(keyNode))
            }
            let key = scalar.string
            let keyPath = join(path, key)
            if let allowed { try check(key, keyNode, path, allowed: allowed) }
            guard seen.insert(key).inserted else {
                throw error(keyNode, keyPath, expected: "each key once", found: "\"\(key)\" again")
            }
            result.append((key, keyNode, value))
        }
        return result
    }

    func check(_ key: String, _ keyNode: Node, _ path: String, allowed: [String]) throws(InputError) {
        guard !allowed.contains(key) else { return }
        var expected = "one of \(allowed.joined(separator: ", "))"
        if let close = Self.closest(to: key, in: allowed) { expected = "a known key (did you mean \"\(close)\"?)" }
        throw error(keyNode, join(path, key), expected: expected, found: "unknown key \"\(key)\"")
    }

    func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func list(_ node: Node, _ path: String, of what: String) throws(InputError) -> [Node] {
        switch node {
        case .sequence(let sequence): return Array(sequence)
        default: throw error(node, path, expected: "a list of \(what)")
        }
    }

    /// Whether a node is YAML's null (`null`, `~` or nothing, unquoted): in an endpoint, "not set", which unsets
    /// a key it would inherit from `defaults:`.
    func isNull(_ node: Node) -> Bool {
        guard case .scalar(let scalar) = node, scalar.style == .plain || scalar.style == .any else { return false }
        return ["null", "Null", "NULL", "~", ""].contains(scalar.string)
    }

    /// A scalar's text; `nil` for a YAML null.
    func scalar(_ node: Node, _ path: String, expected: String) throws(InputError) -> Node.Scalar {
        guard case .scalar(let scalar) = node else { throw error(node, path, expected: expected) }
        return scalar
    }

    func string(_ node: Node, _ path: String, expected: String = "a string", allowEmpty: Bool = false)
        throws(InputError) -> String
    {
        let value = try scalar(node, path, expected: expected)
        if !allowEmpty && value.string.isEmpty { throw error(node, path, expected: expected) }
        return value.string
    }

    func integer(_ node: Node, _ path: String, in range: ClosedRange<Int>) throws(InputError) -> Int {
        let expected = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        let value = try scalar(node, path, expected: expected)
        guard value.style == .plain || value.style == .any, let number = Int(value.string), range.contains(number)
        else { throw error(node, path, expected: expected) }
        return number
    }

    func number(_ node: Node, _ path: String, expected: String, valid: (Double) -> Bool) throws(InputError)
        -> Double
    {
        let value = try scalar(node, path, expected: expected)
        guard let number = Double(value.string), number.isFinite, valid(number) else {
            throw error(node, path, expected: expected)
        }
        return number
    }

    func boolean(_ node: Node) -> Bool? {
        guard case .scalar(let scalar) = node, scalar.style == .plain || scalar.style == .any else { return nil }
        switch scalar.string {
        case "true", "True", "TRUE", "yes", "on": return true
        case "false", "False", "FALSE", "no", "off": return false
        default: return nil
        }
    }

    func duration(_ node: Node, _ path: String) throws(InputError) -> Duration {
        let expected = "a duration like 300ms, 1.5s or 2m"
        let text = try scalar(node, path, expected: expected).string
        guard let value = Self.parseDuration(text), value > .zero else { throw error(node, path, expected: expected) }
        return value
    }

    /// `300ms`, `1.5s`, `2m`, `1h` (`nil` when not a duration): APIProbeShared's one rule.
    static func parseDuration(_ text: String) -> Duration? {
        APIProbeShared.parseDuration(text)
    }

    /// The accepted range of `maxBodySize`: one byte to 4 GiB.
    static let bodySizeRange = 1...(4 << 30)

    func size(_ node: Node, _ path: String) throws(InputError) -> Int {
        let expected = "a size like 512KiB, 8MiB or 1GiB (from 1B to 4GiB)"
        let text = try scalar(node, path, expected: expected).string
        guard let value = Self.parseSize(text), Self.bodySizeRange.contains(value) else {
            throw error(node, path, expected: expected)
        }
        return value
    }

    /// `1048576`, `512B`, `64KB`, `512KiB`, `8MiB`, `1GiB` (KB, MB, GB are powers of 1000); `nil` when not a size.
    static func parseSize(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let units: [(String, Double)] = [
            ("KiB", 1_024), ("MiB", 1_048_576), ("GiB", 1_073_741_824), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9),
            ("B", 1),
        ]
        var digits = Substring(trimmed)
        var scale = 1.0
        for (unit, factor) in units where trimmed.hasSuffix(unit) {
            digits = trimmed.dropLast(unit.count)
            scale = factor
            break
        }
        let number = digits.trimmingCharacters(in: .whitespaces)
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            let value = Double(number), value.isFinite
        else { return nil }
        let bytes = (value * scale).rounded()
        guard bytes < 1e15 else { return nil }
        return Int(bytes)
    }

    func stringMap(_ node: Node, _ path: String, skippingNulls: Bool = false) throws(InputError) -> [(
        key: String, value: String
    )] {
        try members(node, path, allowed: nil).filter { !skippingNulls || !isNull($0.value) }.map {
            member throws(InputError) in
            (member.key, try string(member.value, join(path, member.key), expected: "a string", allowEmpty: true))
        }
    }

    /// A node as a JSON value: plain scalars that read as null, booleans or numbers become those; every
    /// other scalar is a string.
    func json(_ node: Node, _ path: String) throws(InputError) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            guard scalar.style == .plain || scalar.style == .any else { return .string(scalar.string) }
            return Self.plainJSON(scalar.string)
        case .sequence(let sequence):
            var items: [JSONValue] = []
            for (index, item) in sequence.enumerated() { items.append(try json(item, "\(path)[\(index)]")) }
            return .array(items)
        case .mapping:
            var result: [(key: String, value: JSONValue)] = []
            for member in try members(node, path, allowed: nil) {
                result.append((member.key, try json(member.value, join(path, member.key))))
            }
            return .object(result)
        case .alias:
            throw error(node, path, expected: "a value (aliases are not supported)")
        }
    }

    static func plainJSON(_ text: String) -> JSONValue {
        switch text {
        case "null", "~", "": return .null
        case "true": return .bool(true)
        case "false": return .bool(false)
        default:
            if isJSONNumber(text) { return .number(text) }
            return .string(text)
        }
    }

    static func isJSONNumber(_ text: String) -> Bool {
        (try? JSONValue(parsing: Data(text.utf8))).map { if case .number = $0 { true } else { false } } ?? false
    }

    // MARK: Did you mean

    static func closest(to word: String, in candidates: [String]) -> String? {
        let lower = word.lowercased()
        let scored = candidates.map { ($0, editDistance(lower, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(2, word.count / 3) ? best.0 : nil
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = previous
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
