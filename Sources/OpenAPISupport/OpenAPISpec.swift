import APIProbeShared
package import Foundation
package import HTTPFixtures
import JSONSchemaValidation
import JSONShape
import OpenAPIKit
import OpenAPIKit30
import OpenAPIKitCompat
import Yams

/// An OpenAPI 3.0 or 3.1 description (JSON or YAML), read and checked, with its operations and their schemas
/// as JSONShape shapes.
///
/// OpenAPIKit decodes the document (a 3.0 document is converted to 3.1 by OpenAPIKitCompat) to check that it is
/// OpenAPI; the operations and schemas are then read from the document's own tree, so every problem and every
/// approximation names its JSON Pointer in the file.
///
/// ```swift
/// let spec = try OpenAPISpec(contentsOf: URL(fileURLWithPath: "openapi/recipes.yaml"))
/// spec.operations.map(\.name)  // ["GET /api/search", "GET /api/get", "GET /health"]
/// ```
package struct OpenAPISpec: Sendable {
    /// The most YAML nodes read (aliases count each time they are used), so an alias bomb is an error, not a
    /// hang; a document may also hold no more nodes than it has bytes (or 100,000).
    static let maximumNodes = 50_000_000

    /// The file's name in messages.
    package var file: String
    /// The document's `openapi` version (`3.0.3`, `3.1.0`).
    var version: String
    /// The document as read.
    package var root: JSONValue
    /// The operations in document order.
    package var operations: [SpecOperation]
    /// The path parts of the servers' URLs (`/v1`), longest first; empty when every server is at the root.
    var basePaths: [String]
    /// What the snapshots approximate, sorted by place.
    var notes: [SpecNote]
    /// The definitions (one per referenced schema) the operations' response shapes refer to.
    var responseDefinitions: ShapeDefinitions
    /// The definitions the operations' request shapes (parameters and bodies) refer to.
    var requestDefinitions: ShapeDefinitions
    /// The operations' schemas as the JSON Schema validator compiles them (on first use).
    let validators: SpecValidators

    /// Reads a description from a file.
    ///
    /// - Throws: ``InputError``: not readable, not YAML or JSON, not OpenAPI 3.0/3.1, an external or dangling
    ///   `$ref`, a `$ref` cycle with no object or array in between.
    package init(contentsOf url: URL, displayName: String? = nil) throws(InputError) {
        let name = displayName ?? APIProbeShared.displayPath(url)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw InputError(file: name, position: .file, expected: "a readable file", found: "it cannot be read")
        }
        try self.init(data: data, file: name)
    }

    /// Reads a description from its bytes; `file` names it in errors.
    package init(data: Data, file: String) throws(InputError) {
        self.file = file
        let isJSON =
            data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }) == UInt8(ascii: "{")
        let root = try Self.parse(data, isJSON: isJSON, file: file)
        guard let members = root.members else {
            throw InputError(
                file: file, position: .jsonPointer(""), expected: "an OpenAPI document (an object)",
                found: root.shortDescription)
        }
        if let swagger = root["swagger"] {
            throw InputError(
                file: file, position: .jsonPointer("/swagger"), expected: "an OpenAPI 3.0 or 3.1 document",
                found: "Swagger \(swagger.stringValue ?? swagger.shortDescription) (convert it to OpenAPI 3 first)")
        }
        guard let version = root["openapi"]?.stringValue else {
            throw InputError(
                file: file, position: .jsonPointer(members.isEmpty ? "" : "/openapi"),
                expected: "an OpenAPI document with \"openapi\": \"3.0.x\" or \"3.1.x\"",
                found: root["openapi"].map { $0.shortDescription } ?? "no \"openapi\" member")
        }
        guard version.hasPrefix("3.0.") || version.hasPrefix("3.1.") else {
            throw InputError(
                file: file, position: .jsonPointer("/openapi"), expected: "OpenAPI version 3.0.x or 3.1.x",
                found: "string \"\(version)\"")
        }
        // OpenAPIKit's typed model cannot hold every valid schema (3.1's `true`, `$anchor`, `$dynamicRef`, a `$ref`
        // to the metaschema; 3.0's `type: integer` with a fractional `multipleOf`): it checks the document with its
        // schemas set aside, and JSON Schema checks the schemas: 3.1's against the 2020-12 metaschema, 3.0's (which
        // has no metaschema of its own) by compiling them.
        let is30 = version.hasPrefix("3.0.")
        let schemaPointers = SchemaLocations.all(in: root)
        let aside = SchemaLocations.settingSchemasAside(in: root).serialized()
        // Written as JSON, read by the decoder the file's own format takes (YAML's keeps the document's order, so the
        // first problem reported is the first in the file; JSON is YAML).
        try Self.validateWithOpenAPIKit(aside, isJSON: isJSON, is30: is30, file: file)
        do {
            if is30 {
                var options = SchemaOptions()
                options.defaultDialect = .openAPI30
                options.checksAgainstMetaschema = false
                options.acceptsAnnexBPatterns = true
                options.unreadableReferenceAdvice = SpecValidators.unreadableReferenceAdvice
                _ = try JSONSchema.compile(document: root, pointers: schemaPointers, options: options)
            } else {
                let dialect =
                    root["jsonSchemaDialect"]?.stringValue.flatMap(Dialect.init(metaschemaURI:)) ?? .draft2020_12
                try JSONSchema.checkSchemas(in: root, at: schemaPointers, dialect: dialect)
            }
        } catch {
            throw error.file.isEmpty ? error.inFile(file) : error
        }
        self.version = version
        self.root = root

        var reader = OperationReader(root: root, file: file)
        operations = try reader.readOperations()
        // A pattern valid only in ECMA-262's Annex B (how browsers and Python's jsonschema read a description's
        // patterns) is compiled that way, and said: one note each, counted where notes are.
        let legacy = SchemaLocations.patterns(in: root, at: schemaPointers).compactMap { found -> SpecNote? in
            SchemaOptions.legacyPattern(found.pattern).map { reason in
                SpecNote(
                    pointer: found.pointer,
                    message:
                        "the pattern is not valid ECMA-262 with the u flag (\(reason)); compiled by Annex B's syntax, "
                        + "as browsers and Python's jsonschema read it")
            }
        }
        notes = (reader.converter.sortedNotes + legacy).sorted {
            $0.pointer.utf8.lexicographicallyPrecedes($1.pointer.utf8)
        }
        responseDefinitions = reader.converter.responseDefinitions
        requestDefinitions = reader.converter.requestDefinitions
        basePaths = Self.basePaths(of: root)
        validators = SpecValidators(root: root, file: file, version: version, operations: operations)
    }

    // MARK: Reading

    private static func parse(_ data: Data, isJSON: Bool, file: String) throws(InputError) -> JSONValue {
        if isJSON {
            do {
                return try JSONValue(parsing: data)
            } catch {
                throw error.inFile(file)
            }
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw InputError(file: file, position: .file, expected: "UTF-8 text (YAML or JSON)", found: "other bytes")
        }
        let node: Node?
        do {
            node = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            switch error {
            case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
                .composer(let context, let problem, let mark, _):
                throw InputError(
                    file: file, position: .lineColumn(line: mark.line, column: mark.column),
                    expected: "a YAML or JSON document",
                    found: YAMLProblemText.found(
                        problem: problem, context: context?.text,
                        character: YAMLProblemText.character(in: text, line: mark.line, column: mark.column)))
            case .duplicatedKeysInMapping(let duplicates, let context):
                let keys = duplicates.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                throw InputError(
                    file: file, position: .lineColumn(line: context.mark.line, column: context.mark.column),
                    expected: "a mapping with unique keys", found: "\(keys) more than once")
            case .reader(let problem, _, _, _):
                throw InputError(
                    file: file, position: .file, expected: "a YAML or JSON document",
                    found: YAMLProblemText.found(problem: problem))
            default:
                throw InputError(
                    file: file, position: .file, expected: "a YAML or JSON document", found: "text YAML cannot read")
            }
        } catch {
            throw InputError(
                file: file, position: .file, expected: "a YAML or JSON document", found: "text YAML cannot read")
        }
        guard let node else {
            throw InputError(file: file, position: .file, expected: "an OpenAPI document", found: "an empty file")
        }
        // A node takes at least a byte of text unless an alias repeats it: more nodes than bytes is an alias bomb.
        var budget = max(100_000, min(maximumNodes, data.count))
        return try value(of: node, at: "", budget: &budget, depth: 0, file: file)
    }

    private static func value(of node: Node, at pointer: String, budget: inout Int, depth: Int, file: String)
        throws(InputError) -> JSONValue
    {
        budget -= 1
        guard budget >= 0, depth <= maximumJSONDepth else {
            throw InputError(
                file: file, position: node.mark.map { .lineColumn(line: $0.line, column: $0.column) } ?? .file,
                expected: "YAML whose aliases do not expand it past its size, nested at most \(maximumJSONDepth) deep",
                found: budget < 0 ? "aliases that expand too far" : "deeper nesting")
        }
        switch node {
        case .scalar(let scalar):
            // YAML 1.2's core schema, as OpenAPI documents are written: only plain `true`/`false`, `null`/`~`/empty
            // and JSON-style numbers are other than strings (YAML 1.1's `on`/`off`/`yes`/`no` stay strings).
            guard scalar.style == .plain else { return .string(scalar.string) }
            let text = scalar.string
            switch text {
            case "", "~", "null", "Null", "NULL": return .null
            case "true", "True", "TRUE": return .bool(true)
            case "false", "False", "FALSE": return .bool(false)
            default: return Self.isJSONNumber(text) ? .number(text) : .string(text)
            }
        case .mapping(let mapping):
            var members: [(key: String, value: JSONValue)] = []
            for (key, value) in mapping {
                let name = key.string ?? ""
                members.append(
                    (
                        name,
                        try Self.value(
                            of: value, at: pointer + "/" + JSONPointer.escape(name), budget: &budget, depth: depth + 1,
                            file: file)
                    ))
            }
            return .object(members)
        case .sequence(let sequence):
            var items: [JSONValue] = []
            for (index, item) in sequence.enumerated() {
                items.append(
                    try Self.value(of: item, at: "\(pointer)/\(index)", budget: &budget, depth: depth + 1, file: file))
            }
            return .array(items)
        case .alias:
            return .null
        }
    }

    /// Whether `text` is a number as JSON writes it (`-1`, `0.5`, `1e3`).
    static func isJSONNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        func digits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        let leadingZero = bytes.first == UInt8(ascii: "0")
        let integer = digits()
        guard integer > 0, !(leadingZero && integer > 1) else { return false }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// Decodes the document with OpenAPIKit (3.0 through OpenAPIKit30, then converted to 3.1), so a document
    /// that is not OpenAPI is bad input with the place OpenAPIKit names.
    private static func validateWithOpenAPIKit(_ data: Data, isJSON: Bool, is30: Bool, file: String)
        throws(InputError)
    {
        // Vendor extensions (`x-…`) are read from the tree; decoding them through OpenAPIKit decodes every object
        // a second time as `AnyCodable` and took most of the time on large specs.
        // (OpenAPIKit30's key and OpenAPIKit's are the same key.)
        let userInfo: [CodingUserInfoKey: any Sendable] = [OpenAPIKit.VendorExtensionsConfiguration.enabledKey: false]
        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if isJSON {
                let decoder = JSONDecoder()
                decoder.userInfo = userInfo
                return try decoder.decode(type, from: data)
            }
            return try YAMLDecoder().decode(type, from: data, userInfo: userInfo)
        }
        do {
            if is30 {
                _ = try decode(OpenAPIKit30.OpenAPI.Document.self).convert(to: .v3_1_1)
            } else {
                _ = try decode(OpenAPIKit.OpenAPI.Document.self)
            }
        } catch {
            let described = OpenAPIKit.OpenAPI.Error(from: error)
            let pointer = described.codingPath.map { key in
                "/" + JSONPointer.escape(key.intValue.map(String.init) ?? key.stringValue)
            }.joined()
            throw InputError(
                file: file, position: .jsonPointer(pointer), expected: "a valid OpenAPI document",
                found: described.localizedDescription.split(whereSeparator: \.isNewline)
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " "))
        }
    }

    private static func basePaths(of root: JSONValue) -> [String] {
        guard case .array(let servers)? = root["servers"] else { return [] }
        var paths = Set<String>()
        for server in servers {
            guard let url = server["url"]?.stringValue else { continue }
            var rest = Substring(url)
            if let scheme = rest.range(of: "://") {
                rest = rest[scheme.upperBound...]
                rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? ""
            }
            var path = String(rest)
            while path.hasSuffix("/") { path.removeLast() }
            if !path.isEmpty { paths.insert(path.hasPrefix("/") ? path : "/" + path) }
        }
        return paths.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
    }

    // MARK: Lookup

    /// The operation that `method` and `url` (absolute or a path, with or without a query) call: server base
    /// paths are stripped and path templates matched, a template with more literal segments winning.
    ///
    /// - Returns: the operation and the values of its path parameters, or `nil`.
    package func operation(method: String, url: String) -> (operation: SpecOperation, pathValues: [String: String])? {
        let path = Self.stripBase(Self.path(of: url), basePaths: basePaths)
        let segments = Self.segments(path)
        var best: (SpecOperation, [String: String], Int)?
        for operation in operations where operation.method == method.uppercased() {
            guard let (values, literals) = Self.match(template: operation.path, segments: segments) else { continue }
            if best == nil || literals > best!.2 { best = (operation, values, literals) }
        }
        return best.map { ($0.0, $0.1) }
    }

    /// The path of a URL (percent-encoded, as sent): `https://h/a/b?q=1` → `/a/b`.
    static func path(of url: String) -> String { PathTemplate.path(of: url) }

    static func stripBase(_ path: String, basePaths: [String]) -> String {
        PathTemplate.stripBase(path, basePaths: basePaths)
    }

    static func segments(_ path: String) -> [String] { PathTemplate.segments(path) }

    /// The path parameters (decoded) and the count of literal segments, when `segments` fit `template`.
    static func match(template: String, segments: [String]) -> ([String: String], Int)? {
        PathTemplate.match(template: template, segments: segments)
    }
}
