import APIProbeShared
package import FixtureImport
package import Foundation
package import HTTPFixtures
import JSONShape

/// The files `openapi import` writes for one API: a snapshot per operation and success status, and the
/// operations file.
package struct SpecImport: Sendable {
    /// A file to write: its name in the API's folder and its bytes.
    package struct File: Sendable, Hashable {
        package var name: String
        package var data: Data
    }

    /// The snapshots (`<operationId>.schema.json`; `<operationId>.<status>.schema.json` for the second and later
    /// success statuses of one operation), the definitions they share (`components.json`, and
    /// `components.request.json` for the request schemas in `operations.json`), then `operations.json`.
    package var files: [File]
    /// What the snapshots approximate.
    package var notes: [SpecNote]

    /// The operations file's name.
    static let operationsFileName = OperationsFile.fileName

    /// Builds the files for `spec`.
    ///
    /// ```swift
    /// let files = SpecImport(spec).files  // searchRecipes.schema.json, …, operations.json
    /// ```
    package init(_ spec: OpenAPISpec) {
        var files: [File] = []
        var used = Set<String>([Self.operationsFileName])
        var operations: [JSONValue] = []
        var firstSnapshot: [String: (name: String, status: String)] = [:]
        var responseShapes: [ShapeNode] = []
        let requestShapes = spec.operations.flatMap { operation in
            operation.parameters.map(\.shape) + (operation.requestBody.map { [$0.shape] } ?? [])
        }
        for operation in spec.operations {
            let base = FixtureStore.endpointName(ofOperation: operation.id)
            var snapshots: [(String, JSONValue)] = []
            for response in operation.responses where response.isSuccess {
                guard let shape = response.shape else { continue }
                responseShapes.append(shape)
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
                if snapshots.count == 1 { firstSnapshot[operation.id] = (name, response.status) }
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
            ("basePaths", .array(spec.basePaths.map(JSONValue.string))),
            ("notes", .array(spec.notes.map { .string($0.description) })),
            ("x-apiprobe", .object([("generator", .string(OperationsFile.generator))])),
        ])
        // The definitions are written when a file refers to them: a shape small enough is written in full.
        let written = (responseShapes + requestShapes).filter {
            $0.expanded(maximumSchemas: SchemaSnapshot.sharingThreshold) == nil
        }
        for table in [spec.responseDefinitions, spec.requestDefinitions] where table.count > 0 {
            if let source = table.source, !table.names(reachableFrom: written).isEmpty {
                files.append(File(name: source, data: SchemaSnapshot.encodedDefinitions(table)))
            }
        }
        files.append(
            File(
                name: Self.operationsFileName,
                data: document.serialized(pretty: true, sortedKeys: true) + Data("\n".utf8)))
        self.files = files
        notes = spec.notes
        self.spec = spec
        self.snapshotNames = firstSnapshot
    }

    private let spec: OpenAPISpec
    private let snapshotNames: [String: (name: String, status: String)]

    /// The endpoint name of an operation's fixtures: the name of its first snapshot (`searchRecipes`), or, when it
    /// has none, its operation id made a file name. `apiprobe import … --spec` names fixtures so, and snapshot
    /// check and ContractTesting then pair them with the snapshots by name.
    func endpointName(for operation: SpecOperation) -> String {
        snapshotNames[operation.id]?.name ?? FixtureStore.endpointName(ofOperation: operation.id)
    }

    /// The first line of a probe config that `openapi import --config` wrote (and may rewrite).
    static let configMarker = "# Generated by apiprobe openapi import"

    /// An `apiprobe.yml` with an endpoint for each GET operation that can be called without inventing data (no
    /// required parameter, or an example, default or enum value for each), expecting its first success status
    /// and its snapshot. The base URL is the first server's, overridable with `<API>_BASE_URL`.
    ///
    /// - Parameters:
    ///   - api: the API's name (the snapshots' folder).
    ///   - source: the spec's file name, for the header comment.
    /// - Returns: the config's text and the operations left out, with why.
    func probeConfig(api: String, source: String) -> (text: String, skipped: [String]) {
        func quoted(_ text: String) -> String { JSONValue.string(text).serializedText }
        var variable = ""
        for scalar in api.uppercased().unicodeScalars {
            variable += scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) ? String(scalar) : "_"
        }
        variable += "_BASE_URL"
        var server = "http://127.0.0.1:8080"
        if case .array(let servers)? = spec.root["servers"], let url = servers.first?["url"]?.stringValue,
            !url.contains("{")
        {
            server = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        var text = """
            \(Self.configMarker) from \(source): the GET operations that can be called
            # without inventing data. Re-importing rewrites this file; copy it elsewhere to edit it.
            api: \(quoted(api))
            baseURL: ${\(variable):-\(server)}
            endpoints:

            """
        var skipped: [String] = []
        var count = 0
        for operation in spec.operations where operation.method == "GET" {
            guard let snapshot = snapshotNames[operation.id], !snapshot.name.contains("."),
                let status = Int(snapshot.status)
            else {
                skipped.append("\(operation.name): no success status with a JSON body and a plain name")
                continue
            }
            var path = operation.path
            var query: [(String, String)] = []
            var missing: [String] = []
            for parameter in operation.parameters where parameter.isRequired {
                guard let value = Self.exampleValue(of: parameter, in: spec) else {
                    missing.append("\(parameter.location) parameter \(parameter.name)")
                    continue
                }
                switch parameter.location {
                case "path":
                    let encoded = value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? value
                    path = path.replacingOccurrences(of: "{\(parameter.name)}", with: encoded)
                case "query": query.append((parameter.name, value))
                default: missing.append("\(parameter.location) parameter \(parameter.name)")
                }
            }
            guard missing.isEmpty else {
                skipped.append(
                    "\(operation.name): no example for the required \(missing.joined(separator: ", "))")
                continue
            }
            count += 1
            text += "  - name: \(quoted(snapshot.name))\n    path: \(quoted(path))\n"
            if !query.isEmpty {
                text +=
                    "    query: {" + query.map { "\(quoted($0.0)): \(quoted($0.1))" }.joined(separator: ", ") + "}\n"
            }
            text += "    expect: {status: \(status), schema: true}\n"
        }
        if count == 0 { text = text.replacingOccurrences(of: "endpoints:\n", with: "endpoints: []\n") }
        return (text, skipped)
    }

    /// A value to send for a parameter: its example, its schema's example or default, or its first enum value.
    static func exampleValue(of parameter: SpecParameter, in spec: OpenAPISpec) -> String? {
        let raw =
            parameter.schemaPointer.hasSuffix("/schema")
            ? spec.root.value(at: String(parameter.schemaPointer.dropLast("/schema".count))) : nil
        var candidates: [JSONValue?] = [raw?["example"]]
        if let examples = raw?["examples"]?.members, let first = examples.first {
            candidates.append(first.value["value"])
        }
        candidates += [parameter.schema?["example"], parameter.schema?["default"]]
        if case .array(let values)? = parameter.schema?["enum"] { candidates.append(values.first) }
        for candidate in candidates {
            switch candidate {
            case .string(let text)?: return text
            case .number(let literal)?: return literal
            case .bool(let value)?: return value ? "true" : "false"
            default: continue
            }
        }
        return nil
    }

    /// A shape as the schema a snapshot file holds (without `$schema` and `x-apiprobe`).
    static func schemaTree(_ shape: ShapeNode) -> JSONValue {
        guard
            case .object(let members)? = try? JSONValue(parsing: SchemaSnapshot(shape: shape, sampleCount: 0).encoded())
        else { return .object([]) }
        return .object(members.filter { $0.key != "$schema" && $0.key != "x-apiprobe" })
    }

    /// Writes the files into `folder` atomically; a file whose bytes are unchanged is left alone.
    ///
    /// - Returns: the names of the files whose bytes changed.
    /// - Throws: ``InputError`` when a file cannot be written.
    @discardableResult
    package func write(into folder: URL) throws(InputError) -> [String] {
        var changed: [String] = []
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            if try AtomicFile.writeIfChanged(
                file.data, to: url, displayName: APIProbeShared.displayPath(url), inside: folder)
            {
                changed.append(file.name)
            }
        }
        return changed
    }

    /// Refuses a config file that `openapi import` did not write (its first line is not ``configMarker``): a
    /// config of the user's own is never replaced. Call it before writing anything else.
    ///
    /// - Throws: ``InputError`` naming the file.
    package static func requireConfigIsOurs(at url: URL) throws(InputError) {
        guard let existing = try? Data(contentsOf: url), !existing.starts(with: Data(configMarker.utf8)) else {
            return
        }
        throw InputError(
            file: APIProbeShared.displayPath(url), position: .file,
            expected: "a config that openapi import wrote (its first line starts with \"\(configMarker)\")",
            found: "a file of your own; name another --config file")
    }

    /// Writes ``probeConfig(api:source:)`` to `url` atomically, unless its bytes are there already; a config of the
    /// user's own is refused (``requireConfigIsOurs(at:)``).
    ///
    /// - Returns: whether the file was written, and the operations left out of the config, with why.
    /// - Throws: ``InputError`` for a config of the user's own or a file that cannot be written.
    package func writeProbeConfig(to url: URL, api: String, source: String) throws(InputError)
        -> (changed: Bool, skipped: [String])
    {
        try Self.requireConfigIsOurs(at: url)
        let (text, skipped) = probeConfig(api: api, source: source)
        let changed = try AtomicFile.writeIfChanged(
            Data(text.utf8), to: url, displayName: APIProbeShared.displayPath(url), inside: nil)
        return (changed, skipped)
    }
}

extension OpenAPISpec {
    /// Fixtures named by this description's operations, each as `openapi import` names its snapshot (so fixtures
    /// and spec snapshots line up by name), with its servers' base paths: the naming of `import --spec` and of
    /// `serve --spec --proxy`'s recordings.
    package var fixtureNaming: FixtureNaming {
        let names = SpecImport(self)
        return FixtureNaming(
            operations: operations.map { operation in
                FixtureNaming.PathTemplate(
                    method: operation.method, path: operation.path, name: names.endpointName(for: operation))
            },
            basePaths: basePaths)
    }
}
