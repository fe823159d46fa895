import Foundation

/// Input that JSONShape cannot read: the file, the place in it, what was expected and what was found.
///
/// ```
/// samples/search.json:3:14: expected ',' or '}', found '"'
/// Snapshots/recipes/search.schema.json: /properties/id/type: expected a JSON type name, found string "int"
/// ```
public struct JSONShapeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the input a problem is.
    public enum Location: Sendable, Hashable, CustomStringConvertible {
        /// The input as a whole.
        case input
        /// A 1-based line and column (in bytes).
        case lineColumn(line: Int, column: Int)
        /// A JSON Pointer into the document; `""` is the root.
        case jsonPointer(String)

        public var description: String {
            switch self {
            case .input: return ""
            case .lineColumn(let line, let column): return "\(line):\(column)"
            case .jsonPointer(let pointer): return pointer.isEmpty ? "/" : pointer
            }
        }
    }

    /// The file's name as given by the caller, or `<input>`.
    public var file: String
    public var location: Location
    public var expected: String
    public var found: String

    public init(file: String = "<input>", location: Location, expected: String, found: String) {
        self.file = file
        self.location = location
        self.expected = expected
        self.found = found
    }

    public var description: String {
        switch location {
        case .input: return "\(file): expected \(expected), found \(found)"
        case .lineColumn: return "\(file):\(location): expected \(expected), found \(found)"
        case .jsonPointer: return "\(file): \(location): expected \(expected), found \(found)"
        }
    }

    /// The same error naming `file`.
    func inFile(_ name: String) -> JSONShapeError {
        var copy = self
        copy.file = name
        return copy
    }
}
