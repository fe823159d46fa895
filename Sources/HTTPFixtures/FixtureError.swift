/// Where in an input file a problem is.
public enum SourcePosition: Sendable, Hashable, CustomStringConvertible {
    /// The file as a whole (it is missing, unreadable, or not writable).
    case file
    /// A 1-based line and column.
    case lineColumn(line: Int, column: Int)
    /// A JSON Pointer (RFC 6901) into the document; `""` is the root.
    case jsonPointer(String)

    public var description: String {
        switch self {
        case .file: return ""
        case .lineColumn(let line, let column): return "\(line):\(column)"
        case .jsonPointer(let pointer): return pointer.isEmpty ? "/" : pointer
        }
    }
}

/// A fixture that cannot be read or written: the file, the place in it, what was expected and what was found.
///
/// ```
/// Stubs/recipes/search.json:12:5: expected ',' or '}', found '"'
/// Stubs/recipes/search.json: /response/status: expected an integer HTTP status, found string "ok"
/// ```
public struct FixtureError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var position: SourcePosition
    public var expected: String
    public var found: String

    public init(file: String, position: SourcePosition, expected: String, found: String) {
        self.file = file
        self.position = position
        self.expected = expected
        self.found = found
    }

    public var description: String {
        switch position {
        case .file: return "\(file): expected \(expected), found \(found)"
        case .lineColumn: return "\(file):\(position): expected \(expected), found \(found)"
        case .jsonPointer: return "\(file): \(position): expected \(expected), found \(found)"
        }
    }
}

extension JSONValue {
    /// A short description of a value for error messages: `string "99.9"`, `integer 3`, `object`.
    public var briefDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let flag): return "boolean \(flag)"
        case .number(let literal): return "\(typeName) \(literal)"
        case .string(let text):
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "string \"\(shown)\""
        case .array(let items): return "array of \(items.count)"
        case .object: return "object"
        }
    }
}
