package import APIProbeShared
package import Foundation

/// Where in an input file a problem is.
public enum SourcePosition: Sendable, Hashable, CustomStringConvertible {
    /// The file as a whole (it is missing, unreadable, or not writable).
    case file
    /// A 1-based line and column.
    case lineColumn(line: Int, column: Int)
    /// A JSON Pointer (RFC 6901) into the document; `""` is the root.
    case jsonPointer(String)

    /// The line, when the position is a line and column.
    public var line: Int? {
        if case .lineColumn(let line, _) = self { return line }
        return nil
    }

    /// The column (in bytes of UTF-8), when the position is a line and column.
    public var column: Int? {
        if case .lineColumn(_, let column) = self { return column }
        return nil
    }

    public var description: String {
        switch self {
        case .file: return ""
        case .lineColumn(let line, let column): return "\(line):\(column)"
        case .jsonPointer(let pointer): return pointer.isEmpty ? "/" : pointer
        }
    }
}

/// An input that cannot be read: the file, the place in it, what was expected and what was found.
///
/// One error for every input apiprobe reads: fixtures, JSON documents, schema snapshots, usage manifests,
/// OpenAPI descriptions, probe configs, and the bodies a model decodes in a contract test.
///
/// ```
/// Stubs/recipes/search.json:12:5: expected ',' or '}', found '"'
/// Stubs/recipes/search.json: /response/status: expected an integer HTTP status, found string "ok"
/// apiprobe.yml:12:5: endpoints.search.samples: expected a whole number from 1 to 10000, found "many"
/// ```
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file's name as the caller gave it; empty when the input has no name (``JSONValue/init(parsing:)``).
    public var file: String
    /// Where in the file.
    public var position: SourcePosition
    /// The setting's path in a config (`endpoints.search.samples`), shown after the place; `nil` elsewhere.
    public var key: String?
    public var expected: String
    public var found: String

    public init(file: String = "", position: SourcePosition, key: String? = nil, expected: String, found: String) {
        self.file = file
        self.position = position
        self.key = key
        self.expected = expected
        self.found = found
    }

    /// The JSON Pointer of the problem, when the position is one.
    public var pointer: String? {
        if case .jsonPointer(let pointer) = position { return pointer }
        return nil
    }

    /// The same error naming `file`.
    public func inFile(_ file: String) -> InputError {
        var copy = self
        copy.file = file
        return copy
    }

    /// `file:line:column: expected …`, `file: /pointer: expected …` or `file: key: expected …`.
    public var description: String {
        var parts: [String] = []
        switch position {
        case .file:
            if !file.isEmpty { parts.append(file) }
        case .lineColumn:
            parts.append(file.isEmpty ? "\(position)" : "\(file):\(position)")
        case .jsonPointer:
            if !file.isEmpty { parts.append(file) }
            parts.append("\(position)")
        }
        if let key { parts.append(key) }
        parts.append("expected \(expected), found \(found)")
        return parts.joined(separator: ": ")
    }
}

/// The error a fixture could not be read or written with; the one ``InputError``.
@available(*, deprecated, renamed: "InputError")
public typealias FixtureError = InputError

/// The error a JSON document could not be parsed with; the one ``InputError``.
@available(*, deprecated, renamed: "InputError")
public typealias JSONSyntaxError = InputError

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

extension InputError {
    /// The bytes of a file someone named, or the error that says why not, in our words: `no such file`, `a folder`,
    /// `a file that cannot be read` (never Foundation's "The operation could not be completed"). The one reading
    /// of a named file for every command and library.
    ///
    /// - Parameters:
    ///   - url: the file.
    ///   - displayName: the name errors show (as the user wrote it).
    ///   - expected: what the file should be: `a readable config file`.
    ///   - key: the key that named the file, when a config did (`tls.caFile`).
    package static func contents(
        of url: URL, displayName: String, expected: String = "a readable file", key: String? = nil
    ) throws(InputError) -> Data {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
        if exists, !isDirectory.boolValue, let data = try? Data(contentsOf: url) { return data }
        throw InputError(
            file: displayName, position: .file, key: key, expected: expected,
            found: !exists ? "no such file" : isDirectory.boolValue ? "a folder" : "a file that cannot be read")
    }
}

extension InputError: ExitStatusReporting {
    /// Bad input: status 2.
    package var exitStatus: ExitStatus { .badInput }
}
