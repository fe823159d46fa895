import APIProbeShared
public import Foundation
public import HTTPFixtures
import JSONShape

/// The files `openapi import` writes for one API: a snapshot per operation and success status, and the
/// operations file.
public struct SpecImport: Sendable {
    /// A file to write: its name in the API's folder and its bytes.
    public struct File: Sendable, Hashable {
        public var name: String
        public var data: Data
    }

    /// The snapshots (`<operationId>.schema.json`; `<operationId>.<status>.schema.json` for the second and later
    /// success statuses of one operation), then `operations.json`.
    public var files: [File]
    /// What the snapshots approximate.
    public var notes: [SpecNote]

    /// The operations file's name.
    public static let operationsFileName = "operations.json"

    /// Builds the files for `spec`.
    ///
    /// ```swift
    /// let files = SpecImport(spec).files  // searchRecipes.schema.json, …, operations.json
    /// ```
    public init(_ spec: OpenAPISpec) {
        var files: [File] = []
        var used = Set<String>([Self.operationsFileName])
        var operations: [JSONValue] = []
        for operation in spec.operations {
            let base = SafePath.fileName(operation.id, fallback: "operation")
            var snapshots: [(String, JSONValue)] = []
            for response in operation.responses where response.isSuccess {
                guard let shape = response.shape else { continue }
                var name = snapshots.isEmpty ? base : "\(base).\(SafePath.fileName(response.status, fallback: "2XX"))"
                var counter = 2
                while used.contains(name + ".schema.json") {
                    name = "\(base)-\(counter)"
                    counter += 1
                }
                used.insert(name + ".schema.json")
                files.append(
                    File(name: name + ".schema.json", data: SchemaSnapshot(shape: shape, sampleCount: 0).encoded()))
                snapshots.append((response.status, .string(name + ".schema.json")))
            }
            let parameters: [JSONValue] = operation.parameters.map { parameter in
                .object([
                    ("in", .string(parameter.location)), ("name", .string(parameter.name)),
                    ("required", .bool(parameter.isRequired)), ("schema", Self.schemaTree(parameter.shape)),
                ])
            }
            var members: [(key: String, value: JSONValue)] = [
                ("operationId", .string(operation.id)), ("method", .string(operation.method)),
                ("path", .string(operation.path)), ("parameters", .array(parameters)),
                ("responses", .array(operation.responses.map { .string($0.status) })),
                ("snapshots", .object(snapshots)),
            ]
            if let body = operation.requestBody {
                members.append(
                    (
                        "requestBody",
                        .object([("required", .bool(body.isRequired)), ("schema", Self.schemaTree(body.shape))])
                    ))
            } else {
                members.append(("requestBody", .null))
            }
            operations.append(.object(members))
        }
        let document = JSONValue.object([
            ("openapi", .string(spec.version)), ("operations", .array(operations)),
            ("notes", .array(spec.notes.map { .string($0.description) })),
            ("x-apiprobe", .object([("generator", .string("apiprobe openapi import"))])),
        ])
        files.append(
            File(
                name: Self.operationsFileName,
                data: document.serialized(pretty: true, sortedKeys: true) + Data("\n".utf8)))
        self.files = files
        notes = spec.notes
    }

    /// A shape as the schema a snapshot file holds (without `$schema` and `x-apiprobe`).
    static func schemaTree(_ shape: Shape) -> JSONValue {
        guard
            case .object(let members)? = try? JSONValue(parsing: SchemaSnapshot(shape: shape, sampleCount: 0).encoded())
        else { return .object([]) }
        return .object(members.filter { $0.key != "$schema" && $0.key != "x-apiprobe" })
    }

    /// Writes the files into `folder` atomically; a file whose bytes are unchanged is left alone.
    ///
    /// - Returns: the names of the files whose bytes changed.
    /// - Throws: ``FixtureError`` when a file cannot be written.
    @discardableResult
    public func write(into folder: URL) throws(FixtureError) -> [String] {
        var changed: [String] = []
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            if let existing = try? Data(contentsOf: url), existing == file.data { continue }
            try AtomicFile.write(file.data, to: url, displayName: APIProbeShared.displayPath(url), inside: folder)
            changed.append(file.name)
        }
        return changed
    }
}
